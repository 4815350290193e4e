/* test_access.c: --allow matching and the --rate-limit bucket of receiver/access.c, on exact clocks. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include "access.h"
#include "tap.h"

static struct sockaddr_storage addr(const char *s)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, s, &sin->sin_addr) == 1)
		sin->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &sin6->sin6_addr) == 1)
		sin6->sin6_family = AF_INET6;
	else
		BAIL_OUT("bad test address %s", s);
	return ss;
}

static bool allowed(const struct access *a, const char *s)
{
	struct sockaddr_storage ss = addr(s);

	return access_allowed(a, (struct sockaddr *)&ss);
}

static void parsing(void)
{
	static const char *const bad[] = {
		"", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/+8",
		"10.0.0.0/8x", "10.0.0", "example.com", "10.0.0.0/8/8",
	};
	struct access a = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(access_add_net(&a, bad[i]), -EINVAL, "--allow '%s' is refused", bad[i]);
	is_int(a.n_nets, 0, "nothing refused was added");
	for (int i = 0; i < ACCESS_NETS_MAX; i++)
		access_add_net(&a, "10.0.0.0/8");
	is_int(access_add_net(&a, "10.0.0.0/8"), -ENOSPC, "at most %d networks", ACCESS_NETS_MAX);
	is_int(access_set_rate(&a, "100"), 0, "--rate-limit 100");
	is_int(a.rate, 100, "rate 100");
	is_int(access_set_rate(&a, "7/s"), 0, "--rate-limit 7/s");
	is_int(a.rate, 7, "rate 7");
	is_int(access_set_rate(&a, "0"), -EINVAL, "--rate-limit 0 is refused");
	is_int(access_set_rate(&a, "5/m"), -EINVAL, "--rate-limit 5/m is refused");
	is_int(access_set_rate(&a, "-5"), -EINVAL, "--rate-limit -5 is refused");
}

static void matching(void)
{
	struct access a = { 0 };

	ok(allowed(&a, "192.0.2.1") && allowed(&a, "2001:db8::1"), "no --allow: everyone");
	access_add_net(&a, "127.0.1.0/30");
	access_add_net(&a, "10.1.2.3/12");	/* host bits set: means 10.0.0.0/12 */
	access_add_net(&a, "::1/128");
	access_add_net(&a, "2001:db8:8000::/33");
	access_add_net(&a, "192.0.2.7");	/* a bare address is a host */
	ok(allowed(&a, "127.0.1.0") && allowed(&a, "127.0.1.3"), "127.0.1.0/30 holds .0 to .3");
	ok(!allowed(&a, "127.0.1.4") && !allowed(&a, "127.0.0.1"), "127.0.1.0/30 ends at .3");
	ok(allowed(&a, "10.15.255.255") && !allowed(&a, "10.16.0.0"), "10.1.2.3/12 is 10.0.0.0 to 10.15.255.255");
	ok(allowed(&a, "192.0.2.7") && !allowed(&a, "192.0.2.6"), "a bare IPv4 address is a /32");
	ok(allowed(&a, "::1") && !allowed(&a, "::2"), "::1/128 is one host");
	ok(allowed(&a, "2001:db8:8000::1") && allowed(&a, "2001:db8:ffff:ffff::1"), "inside 2001:db8:8000::/33");
	ok(!allowed(&a, "2001:db8:7fff::1"), "the 33rd bit counts");
	ok(!allowed(&a, "::ffff:127.0.1.1"), "an IPv4 network does not match a v6 address (the socket unmaps v4-mapped ones)");
}

/* Sources arrive unmapped: an IPv4 sender is AF_INET even on a dual-stack socket.
 * IPv6 networks that hold its mapped form ::ffff:a.b.c.d hold it too. */
static void mapped(void)
{
	static const struct {
		const char *net, *in, *out;
	} cases[] = {
		{ "::ffff:0:0/96", "127.0.0.1", NULL },
		{ "::ffff:0:0/96", "192.0.2.200", "2001:db8::1" },
		{ "::ffff:127.0.0.0/104", "127.255.255.255", "128.0.0.0" },
		{ "::ffff:127.0.0.0/104", "127.0.0.1", "10.0.0.1" },
		{ "::ffff:10.1.2.3", "10.1.2.3", "10.1.2.4" },
		{ "::ffff:10.1.0.0/112", "10.1.255.1", "10.2.0.1" },
		{ "::/0", "127.0.0.1", NULL },
		{ "::/0", "2001:db8::1", NULL },
		{ "::/80", "198.51.100.7", "::1:0:0:0" },
		{ "::/96", NULL, "127.0.0.1" },		/* IPv4-compatible (::a.b.c.d), not mapped */
		{ "::ffff:0:0/97", "127.255.255.255", "128.0.0.0" },	/* the first half of IPv4 */
		{ "::fffe:0:0/96", NULL, "127.0.0.1" },
		{ "64:ff9b::/96", NULL, "192.0.2.1" },	/* NAT64, not mapped */
		{ "2001:db8::/32", NULL, "127.0.0.1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct access a = { 0 };

		if (access_add_net(&a, cases[i].net))
			BAIL_OUT("--allow %s refused", cases[i].net);
		if (cases[i].in)
			ok(allowed(&a, cases[i].in), "--allow %s holds %s", cases[i].net, cases[i].in);
		if (cases[i].out)
			ok(!allowed(&a, cases[i].out), "--allow %s does not hold %s", cases[i].net, cases[i].out);
	}
}

static bool pass(struct access *a, uint64_t *tat, long long ns)
{
	struct timespec t = { ns / 1000000000, ns % 1000000000 };

	return access_within_rate(a, tat, &t);
}

static void rate(void)
{
	struct access a = { 0 };
	const long long t0 = 1700000000LL * 1000000000;
	uint64_t tat = 0;
	int n = 0;

	ok(pass(&a, &tat, t0), "no --rate-limit: everything passes");
	a.rate = 10;
	tat = 0;
	for (int i = 0; i < 100; i++)
		n += pass(&a, &tat, t0);
	is_int(n, 10, "a burst at one instant: exactly one second's worth (10) passes");
	ok(!pass(&a, &tat, t0 + 99999999), "99.999999 ms later: still nothing");
	ok(pass(&a, &tat, t0 + 100000000), "100 ms later: one more");
	ok(!pass(&a, &tat, t0 + 100000000), "and only one");
	for (n = 0; n < 100; n++)
		if (!pass(&a, &tat, t0 + 100000000 + 10000000000LL))
			break;
	is_int(n, 10, "after 10 s idle the bucket holds one second's worth again, not more");
	n = 0;
	for (long long t = 0; t < 10000000000LL; t += 1000000)
		n += pass(&a, &tat, t0 + 20000000000LL + t);
	is_int(n, 100 + 9, "a steady 1000/s for 10 s: the burst of 10 then 10 per second (109 of 10000)");
	ok(pass(&a, &tat, t0 - 3600 * 1000000000LL), "the clock stepped back an hour: the source starts afresh");
}

int main(void)
{
	parsing();
	matching();
	mapped();
	rate();
	return done_testing();
}
