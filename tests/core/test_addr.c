/* test_addr.c: core/addr.c: listen addresses parsed, sender addresses printed, unmapped and taken apart exactly. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>

#include "addr-fixture.h"
#include "addr.h"
#include "tap.h"

#define SA(ss) ((const struct sockaddr *)&(ss))

/* addr_format() of what addr_parse() made of \a spec, or the -errno as text. */
static const char *parsed(const char *spec)
{
	static char out[ADDR_TEXT_MAX];
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int rc = addr_parse(spec, 4729, &ss, &len);

	if (rc)
		snprintf(out, sizeof(out), "%s", rc == -EINVAL ? "-EINVAL" : rc == -ENOENT ? "-ENOENT" : "other");
	else if (len != addr_len(SA(ss)))
		snprintf(out, sizeof(out), "length %u for family %d", (unsigned int)len, ss.ss_family);
	else
		addr_format(out, sizeof(out), SA(ss));
	return out;
}

#define PARSES(spec, want) is_mem(parsed(spec), strlen(parsed(spec)), want, "addr_parse(\"%s\") is %s", spec, want)

static void parse(void)
{
	PARSES("[::]:4729", "[::]:4729");
	PARSES("[::]", "[::]:4729");
	PARSES("::", "[::]:4729");
	PARSES("::1", "[::1]:4729");
	PARSES("[2001:db8::7]:5000", "[2001:db8::7]:5000");
	PARSES("0.0.0.0:5000", "0.0.0.0:5000");
	PARSES("127.0.0.1", "127.0.0.1:4729");
	PARSES("127.0.0.1:1", "127.0.0.1:1");
	PARSES("127.0.0.1:65535", "127.0.0.1:65535");
	PARSES("localhost:4730", "127.0.0.1:4730");	/* /etc/hosts: 127.0.0.1 localhost */

	PARSES("127.0.0.1:0", "-EINVAL");
	PARSES("127.0.0.1:65536", "-EINVAL");
	PARSES("127.0.0.1:", "-EINVAL");
	PARSES("127.0.0.1:47x", "-EINVAL");
	PARSES("127.0.0.1:-1", "-EINVAL");
	PARSES(":4729", "-EINVAL");
	PARSES("", "-EINVAL");
	PARSES("[::1", "-EINVAL");
	PARSES("[::1]4729", "-EINVAL");
	PARSES("[]:4729", "-EINVAL");
	/* a space is no host name: glibc refuses it without asking DNS */
	PARSES("bad name", "-ENOENT");
}

static void format(void)
{
	struct sockaddr_storage ss;
	char buf[64];

	fixture_addr(&ss, "fe80::1", 4729);
	((struct sockaddr_in6 *)&ss)->sin6_scope_id = 2;
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), "[fe80::1%2]:4729",
	       "a link-local source shows its scope, which tells two such senders apart");
	fixture_addr(&ss, "192.0.2.1", 65535);
	is_int(addr_format(buf, sizeof(buf), SA(ss)), 15, "addr_format returns the length of 192.0.2.1:65535");
	ok(!strcmp(buf, "192.0.2.1:65535"), "and NUL-terminates it");
	is_int(addr_format(buf, 15, SA(ss)), 0, "no room for the NUL returns 0");
	ok(buf[0] == '\0', "and leaves an empty string");
	is_int(addr_format(buf, 0, SA(ss)), 0, "no room at all returns 0 and writes nothing");
	fixture_addr(&ss, "2001:db8::42", 1);
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), "[2001:db8::42]:1", "IPv6 in brackets, then the port");
	ss.ss_family = AF_UNIX;
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), "-", "an address of another family is -");
	ok(sizeof("[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255%4294967295]:65535") <= ADDR_TEXT_MAX,
	   "ADDR_TEXT_MAX holds the longest address with a scope and a port");
}

static void unmap(void)
{
	struct sockaddr_storage ss, plain;
	char buf[ADDR_TEXT_MAX];

	fixture_addr(&ss, "::ffff:10.1.2.3", 4242);
	fixture_addr(&plain, "10.1.2.3", 4242);

	addr_unmap(&ss);
	is_int(ss.ss_family, AF_INET, "a v4-mapped IPv6 address becomes AF_INET");
	ok(!memcmp(&ss, &plain, sizeof(struct sockaddr_in)), "with the same address and port, the rest zero");
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), "10.1.2.3:4242", "and prints as IPv4");
	fixture_addr(&ss, "2001:db8::ffff:a01:203", 7);
	addr_unmap(&ss);
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), "[2001:db8::ffff:a01:203]:7", "other IPv6 is left as it is");
	fixture_addr(&ss, "10.1.2.3", 7);
	addr_unmap(&ss);
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), "10.1.2.3:7", "IPv4 is left as it is");
}

/* addr_set() of one family's address and port 4729, then every accessor of it. */
static void family_parts(int family, const uint8_t *addr, size_t size, const char *text, size_t len)
{
	static const uint8_t port[2] = { 0x12, 0x79 };	/* 4729, big-endian */
	struct sockaddr_storage ss;
	const uint8_t *bytes = NULL;
	char buf[ADDR_TEXT_MAX];

	addr_set(&ss, family, addr, port);
	is_mem(buf, addr_format(buf, sizeof(buf), SA(ss)), text, "addr_set: %s, the port big-endian", text);
	is_int(addr_bytes(SA(ss), &bytes), family, "%s: addr_bytes gives the family", text);
	ok(bytes && !memcmp(bytes, addr, size), "%s: and the %zu address bytes", text, size);
	is_int(addr_port(SA(ss)), 4729, "%s: addr_port in host order", text);
	is_int(addr_len(SA(ss)), len, "%s: addr_len is the family's sockaddr", text);
}

static void parts(void)
{
	static const uint8_t v4[4] = { 192, 0, 2, 9 };
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct sockaddr_storage ss;
	const uint8_t *bytes;

	family_parts(AF_INET, v4, sizeof(v4), "192.0.2.9:4729", sizeof(struct sockaddr_in));
	family_parts(AF_INET6, v6, sizeof(v6), "[2001:db8::1]:4729", sizeof(struct sockaddr_in6));
	fixture_addr(&ss, "192.0.2.9", 1);
	ss.ss_family = AF_UNIX;
	is_int(addr_bytes(SA(ss), &bytes), AF_UNSPEC, "another family has no address bytes");
	is_int(addr_port(SA(ss)), 0, "nor a port");
	is_int(addr_len(SA(ss)), 0, "nor a length the collector uses");

	fixture_addr(&ss, "0.0.0.0", 1);
	ok(addr_is_wildcard(SA(ss)), "0.0.0.0 is the wildcard");
	fixture_addr(&ss, "::", 1);
	ok(addr_is_wildcard(SA(ss)), ":: is the wildcard");
	fixture_addr(&ss, "127.0.0.1", 1);
	ok(!addr_is_wildcard(SA(ss)), "127.0.0.1 is not");
	fixture_addr(&ss, "::1", 1);
	ok(!addr_is_wildcard(SA(ss)), "::1 is not");
}

int main(void)
{
	parse();
	format();
	unmap();
	parts();
	return done_testing();
}
