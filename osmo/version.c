/* version.c: which libosmocore a process has loaded, told by the SONAME of the object that defines a symbol. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "version.h"

/*! What the search over the loaded objects looks for, and what it found. */
struct soname_search {
	uintptr_t addr;		/*!< an address inside the object: the symbol's */
	char *out;
	size_t size;
	int rc;			/*!< -ENOENT until the object is found */
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

int osmo_loaded_soname(const char *symbol, char *out, size_t size)
{
	struct soname_search s = { .out = out, .size = size, .rc = -ENOENT };
	void *addr = dlsym(RTLD_DEFAULT, symbol);

	if (size)
		out[0] = '\0';
	if (!addr)
		return -ENOENT;
	s.addr = (uintptr_t)addr;
	dl_iterate_phdr(find_cb, &s);
	return s.rc;
}
