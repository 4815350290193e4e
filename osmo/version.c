/* version.c: which libosmocore a process has loaded: the SONAME of the object that defines a symbol, and the release its file name tells. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "releases.h"
#include "version.h"

/*! What the search over the loaded objects looks for, and what it found. */
struct soname_search {
	uintptr_t addr;		/*!< an address inside the object: the symbol's */
	char *out;
	size_t size;
	int rc;			/*!< -ENOENT until the object is found */
	bool path;		/*!< out gets the object's path, not its SONAME */
};

static bool contains(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr >= start && addr - start < ph->p_memsz)
			return true;
	}
	return false;
}

/* DT_SONAME is an offset into DT_STRTAB.  The loader has relocated DT_STRTAB
 * in place in most objects; where it has not (the vDSO), it is below the
 * object's base and still needs it. */
static const char *soname_of(const struct dl_phdr_info *info, const ElfW(Dyn) *dyn)
{
	uintptr_t strtab = 0;
	size_t strsz = 0, soname = SIZE_MAX;

	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_STRTAB)
			strtab = dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_STRSZ)
			strsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SONAME)
			soname = dyn->d_un.d_val;
	}
	if (!strtab || soname >= strsz)
		return NULL;
	if (strtab < info->dlpi_addr)
		strtab += info->dlpi_addr;
	return (const char *)strtab + soname;
}

static int find_cb(struct dl_phdr_info *info, size_t info_size, void *arg)
{
	struct soname_search *s = arg;
	const char *soname = NULL;

	(void)info_size;
	if (!contains(info, s->addr))
		return 0;
	if (s->path) {
		s->rc = info->dlpi_name && info->dlpi_name[0] ? 0 : -ENODATA;
		snprintf(s->out, s->size, "%s", s->rc ? "" : info->dlpi_name);
		return 1;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC)
			soname = soname_of(info, (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr));
	}
	s->rc = soname ? 0 : -ENODATA;
	if (soname)
		snprintf(s->out, s->size, "%s", soname);
	return 1;
}

static int search(const char *symbol, bool path, char *out, size_t size)
{
	struct soname_search s = { .out = out, .size = size, .rc = -ENOENT, .path = path };
	void *addr = dlsym(RTLD_DEFAULT, symbol);

	if (size)
		out[0] = '\0';
	if (!addr)
		return -ENOENT;
	s.addr = (uintptr_t)addr;
	dl_iterate_phdr(find_cb, &s);
	return s.rc;
}

int osmo_loaded_soname(const char *symbol, char *out, size_t size)
{
	return search(symbol, false, out, size);
}

/*! A release of the SONAME this build is for (osmo/meson.build): its name,
 *  and libtool's age in its LIBVERSION, the middle number of its file's name
 *  (1.14.2's 26:2:4 makes libosmocore.so.22.4.2). */
struct osmo_release {
	const char *name;
	unsigned int age;
};

/* The entry of known named name, or NULL. */
static const struct osmo_release *release_named(const char *name, const struct osmo_release *known, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(known[i].name, name))
			return &known[i];
	return NULL;
}

/* "SONAME.AGE.REVISION": the age, or -1 for any other name. */
static long age_in(const char *name, const char *soname)
{
	size_t len = strlen(soname);
	const char *p = name + len;
	unsigned long age;
	char *end;

	if (strncmp(name, soname, len) || p[0] != '.' || !isdigit((unsigned char)p[1]))
		return -1;
	age = strtoul(p + 1, &end, 10);
	if (end[0] != '.' || !isdigit((unsigned char)end[1]) || age > 1000000)
		return -1;
	strtoul(end + 1, &end, 10);
	return *end ? -1 : (long)age;
}

/* The release the loaded object that defines symbol is, among known: told by
 * the real name of its file (symbolic links followed), SONAME.AGE.REVISION.
 * libosmocore has no run-time version string; that name is libtool's, which
 * every distribution's package keeps.  file gets the file's name without its
 * folder, for the line that names it.  NULL: no such object (file empty), a
 * name that is not soname and two numbers, or an age no entry has. */
static const struct osmo_release *loaded_release(const char *symbol, const char *soname,
						 const struct osmo_release *known, size_t n,
						 char *file, size_t size)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *base;
	long age;

	if (size)
		file[0] = '\0';
	if (search(symbol, true, path, sizeof(path)))
		return NULL;
	/* Called once per process, at start-up: realpath() may allocate there. */
	base = realpath(path, real) ? real : path;
	base = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
	/* Cut to fit: it only names the file in a line. */
	snprintf(file, size, "%.*s", size ? (int)(size - 1) : 0, base);
	age = age_in(base, soname);
	for (size_t i = 0; age >= 0 && i < n; i++)
		if (known[i].age == (unsigned long)age)
			return &known[i];
	return NULL;
}

void osmo_say_aside(const struct osmo_checker *c, const char *has, const char *how)
{
	fprintf(stderr, "%s: this process has %s%s; %s is built and tested for %s only, so %s\n",
		c->prefix, has, how, c->what, GSMTAPLOG_OSMO_SERVES, c->aside);
}

bool osmo_release_known(const struct osmo_checker *c)
{
	static const struct osmo_release known[] = GSMTAPLOG_OSMO_RELEASES;
	const size_t n = sizeof(known) / sizeof(known[0]);
	const char *assumed = getenv("GSMTAPLOG_OSMO_RELEASE");
	char file[256];

	if (loaded_release("log_target_create", GSMTAPLOG_OSMO_SONAME, known, n, file, sizeof(file)))
		return true;
	if (release_named(assumed, known, n)) {
		fprintf(stderr, "%s: this process has %s, taken as libosmocore %s (GSMTAPLOG_OSMO_RELEASE): "
			"untested, at the operator's risk\n", c->prefix, file[0] ? file : "an unnamed libosmocore", assumed);
		return true;
	}
	osmo_say_aside(c, file[0] ? file : "an unnamed libosmocore",
		       ", a release of " GSMTAPLOG_OSMO_SONAME " that this build does not know");
	return false;
}
