/* test_names.c: core/names.c: what a hosts(5) file names, what it ignores, and lines of any length read as one line. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "addr-fixture.h"
#include "names.h"
#include "tap.h"

/* names_load() of a file holding \a len bytes of \a text. */
static struct names *load(const char *text, size_t len)
{
	char path[] = "/tmp/test_names-XXXXXX";
	int fd = mkstemp(path);
	struct names *n;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		BAIL_OUT("cannot write %s: %s", path, strerror(errno));
	close(fd);
	n = names_load(path);
	unlink(path);
	if (!n)
		BAIL_OUT("names_load %s: %s", path, strerror(errno));
	return n;
}

static struct names *load_str(const char *text)
{
	return load(text, strlen(text));
}

/* The name of ADDR (any port), or "(none)". */
static const char *lookup(const struct names *n, const char *addr)
{
	struct sockaddr_storage ss;
	const char *name;

	fixture_addr(&ss, addr, 4729);
	name = names_lookup(n, (const struct sockaddr *)&ss);

	return name ? name : "(none)";
}

#define NAMED(n, addr, want) \
	is_mem(lookup(n, addr), strlen(lookup(n, addr)), want, "%s is %s", addr, want)

static void plain_file(void)
{
	struct names *n = load_str(
		"# a comment line\n"
		"\n"
		"   \t  \n"
		"127.0.1.1\tbts-1.example bts-1\n"
		"127.0.1.2 trx-2.example # the comment is not an alias\n"
		"  10.0.0.9   indented\n"
		"2001:db8::1 v6-host.example\n"
		"127.0.1.1 second-line-for-the-same-address\n"
		"127.0.1.3 # a comment where the name would be\n"
		"not-an-address name\n"
		"10.0.0.7\n"
		"10.0.0.8 a-name-of-64-bytes-is-one-too-long-for-the-nrb-entries-we-keep-x\n"
		"10.0.0.10 a-name-of-63-bytes-is-kept-whole-in-the-name-block-xxxxxxxxxxxx\n"
		"::ffff:10.0.0.11 mapped\n"
		"10.0.0.12 last-line-without-newline");

	NAMED(n, "127.0.1.1", "bts-1.example");
	NAMED(n, "127.0.1.2", "trx-2.example");
	NAMED(n, "10.0.0.9", "indented");
	NAMED(n, "2001:db8::1", "v6-host.example");
	NAMED(n, "10.0.0.10", "a-name-of-63-bytes-is-kept-whole-in-the-name-block-xxxxxxxxxxxx");
	NAMED(n, "10.0.0.12", "last-line-without-newline");
	NAMED(n, "127.0.1.3", "(none)");
	NAMED(n, "10.0.0.7", "(none)");
	NAMED(n, "10.0.0.8", "(none)");
	NAMED(n, "127.0.1.9", "(none)");
	NAMED(n, "2001:db8::2", "(none)");
	NAMED(n, "::ffff:10.0.0.11", "mapped");
	NAMED(n, "10.0.0.11", "(none)");	/* records never carry a mapped address; the file's is IPv6 */
	/* a name without its address, an address without its name, one too long; a
	 * lone comment after an address is an address without a name too */
	is_int(names_ignored(n), 4, "ignored: no address, no name (twice), a 64-byte name; blank lines and comments are not counted");
	names_free(n);
}

/* A line far longer than any buffer: its first name is kept and the rest of
 * the line is skipped, however it goes on. */
static void long_lines(void)
{
	static char text[16384];
	size_t len = 0;
	struct names *n;

	len += sprintf(text + len, "10.1.0.1 first-name");
	while (len < 5000)
		len += sprintf(text + len, " alias-%zu", len);
	len += sprintf(text + len, "\n10.1.0.2 after-the-long-line\n");
	/* a comment whose tail, at the 1024th byte, looks like a line of its own */
	len += sprintf(text + len, "10.1.0.3 commented #");
	{
		size_t start = len - strlen("10.1.0.3 commented #");

		while (len - start < 1023)
			text[len++] = '-';
	}
	len += sprintf(text + len, "10.1.0.4 from-a-comment\n");
	/* aliases whose tail, again at the 1024th byte, looks like a line */
	{
		size_t start = len;

		len += sprintf(text + len, "10.1.0.5 aliased");
		while (len - start < 1023)
			text[len++] = ' ';
	}
	len += sprintf(text + len, "10.1.0.6 from-an-alias-list\n");
	/* a name that runs across the 1024th byte: cut there, it would be another name */
	{
		size_t start = len;

		len += sprintf(text + len, "10.1.0.7");
		while (len - start < 1015)
			text[len++] = ' ';
	}
	len += sprintf(text + len, "cut-by-the-piece\n10.1.0.8 the-last-line\n");
	n = load(text, len);

	NAMED(n, "10.1.0.1", "first-name");
	NAMED(n, "10.1.0.2", "after-the-long-line");
	NAMED(n, "10.1.0.3", "commented");
	NAMED(n, "10.1.0.4", "(none)");
	NAMED(n, "10.1.0.5", "aliased");
	NAMED(n, "10.1.0.6", "(none)");
	NAMED(n, "10.1.0.7", "(none)");
	NAMED(n, "10.1.0.8", "the-last-line");
	is_int(names_ignored(n), 1, "ignored: only the name cut by the piece boundary");
	names_free(n);
}

/* NAMES_MAX entries are kept, in file order; the rest are counted. */
static void full_table(void)
{
	static char text[(NAMES_MAX + 2) * 40];
	size_t len = 0;
	struct names *n;
	char addr[32], want[32];
	int bad = 0;

	for (int i = 0; i < NAMES_MAX + 2; i++)
		len += sprintf(text + len, "10.2.%d.%d host-%d\n", i / 256, i % 256, i);
	len += sprintf(text + len, "10.2.0.0 not-the-first\n");
	n = load(text, len);
	for (int i = 0; i < NAMES_MAX; i++) {
		sprintf(addr, "10.2.%d.%d", i / 256, i % 256);
		sprintf(want, "host-%d", i);
		bad += strcmp(lookup(n, addr), want) != 0;
	}
	is_int(bad, 0, "all %d entries resolve to their own names", NAMES_MAX);
	NAMED(n, "10.2.16.0", "(none)");
	NAMED(n, "10.2.16.1", "(none)");
	NAMED(n, "10.2.0.0", "host-0");
	is_int(names_ignored(n), 3, "the two past NAMES_MAX and the one after them are ignored");
	names_free(n);
}

int main(void)
{
	errno = 0;
	ok(!names_load("/nonexistent/hosts") && errno == ENOENT, "a missing file: NULL with ENOENT");
	plain_file();
	long_lines();
	full_table();
	return done_testing();
}
