/* gsmtap-hostile.c: sends one of each hostile or malformed GSMTAP datagram a collector must survive, and says what each should count as. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Usage: gsmtap-hostile [-d DST] [-p PORT]
 * Each case is built from a well-formed log datagram (wire_encode_prefix) and
 * then cut or changed.  Prints "case NAME len=N expect=log|malformed|other" per
 * datagram, then "sent=N log=L malformed=M other=O".  `log` datagrams must each
 * become exactly one text line, `malformed` ones are counted as such, `other`
 * ones are well-formed GSMTAP of another type; the pcapng keeps all of them.
 * The expectations are written here by hand from FACTS.md's layout, not taken
 * from the decoder under test.  Every datagram is numbered, as libgsmtaplog
 * numbers its lines, because a numbered sender's datagram is always one whole
 * line; joining libosmocore's unnumbered LOGPC pieces has tests of its own.
 */
#include <arpa/inet.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire.h"

#define UDP_MAX		65507	/* the largest IPv4 UDP payload */

enum expect { LOG, MALFORMED, OTHER, EXPECT_KINDS };

static const char *const expect_name[EXPECT_KINDS] = { "log", "malformed", "other" };

struct dgram {
	uint8_t b[UDP_MAX];
	size_t len;
};

static int fd;
static unsigned long counts[EXPECT_KINDS], sent;

static struct wire_log default_log(void)
{
	static uint32_t numbered;

	return (struct wire_log){
		.seq = ++numbered,
		.sec = 1700000000, .usec = 1, .pid = 42, .line = 7, .level = WIRE_LEVEL_INFO,
		.ident = { "hostile", 7 }, .subsys = { "TEST", 4 }, .file = { "hostile.c", 9 },
	};
}

/* A well-formed log datagram of \a log with \a len bytes of \a text. */
static struct dgram *build(const struct wire_log *log, const void *text, size_t len)
{
	static struct dgram g;

	if (len > sizeof(g.b) - WIRE_PREFIX_LEN)
		errx(1, "text too long");
	wire_encode_prefix(g.b, log);
	memcpy(g.b + WIRE_PREFIX_LEN, text, len);
	g.len = WIRE_PREFIX_LEN + len;
	return &g;
}

static struct dgram *text_case(const void *text, size_t len)
{
	struct wire_log log = default_log();

	return build(&log, text, len);
}

static void send_case(const char *name, enum expect e, const struct dgram *g)
{
	if (send(fd, g->b, g->len, 0) != (ssize_t)g->len)
		err(1, "send %s (%zu bytes)", name, g->len);
	printf("case %s len=%zu expect=%s\n", name, g->len, expect_name[e]);
	counts[e]++;
	sent++;
	usleep(1000);	/* one at a time: a case is a datagram, not a load test */
}

#define STR(s)	s, sizeof(s) - 1

/* Every length that ends inside or at the edge of a header field. */
static void truncated(void)
{
	static const size_t log_edges[] = { 16, 20, 24, 40, 44, 45, 48, 64, 96, 99 };
	struct dgram *g = text_case(STR("cut"));
	char name[32];

	for (size_t len = 0; len < WIRE_GSMTAP_HDR_LEN; len++) {
		g->len = len;
		snprintf(name, sizeof(name), "truncated-%zu", len);
		send_case(name, MALFORMED, g);
	}
	for (size_t i = 0; i < sizeof(log_edges) / sizeof(log_edges[0]); i++) {
		g->len = log_edges[i];
		snprintf(name, sizeof(name), "truncated-%zu", log_edges[i]);
		send_case(name, MALFORMED, g);
	}
}

static void bad_headers(void)
{
	static const uint8_t versions[] = { 0, 1, 3, 255 }, hdr_lens[] = { 0, 3, 26, 255 };
	struct dgram *g;
	char name[32];

	for (size_t i = 0; i < sizeof(versions); i++) {
		g = text_case(STR("version"));
		g->b[WIRE_OFF_VERSION] = versions[i];
		snprintf(name, sizeof(name), "version-%u", versions[i]);
		send_case(name, MALFORMED, g);
	}
	/* 0 and 3 words are shorter than the header; 26 words (104 bytes) and 255
	 * words run past the end of this 101-byte datagram */
	for (size_t i = 0; i < sizeof(hdr_lens); i++) {
		g = text_case(STR("h"));
		g->b[WIRE_OFF_HDR_LEN] = hdr_lens[i];
		snprintf(name, sizeof(name), "hdr-len-%u", hdr_lens[i]);
		send_case(name, MALFORMED, g);
	}
	/* 5 words: the log header then starts 4 bytes later and is cut short */
	g = text_case(NULL, 0);
	g->b[WIRE_OFF_HDR_LEN] = 5;
	send_case("hdr-len-5-log-header-short", MALFORMED, g);
	/* 5 words with the 4 extra bytes really there: a longer header is allowed */
	g = text_case(STR("longer gsmtap header"));
	memmove(g->b + 20, g->b + 16, g->len - 16);
	memset(g->b + 16, 0xee, 4);
	g->b[WIRE_OFF_HDR_LEN] = 5;
	g->len += 4;
	send_case("hdr-len-5-extended", LOG, g);
}

static void names(void)
{
	struct wire_log log = default_log();
	struct dgram *g = build(&log, STR("names fill their fields"));

	/* no NUL anywhere in ident, subsys or file: the whole field is the name */
	memset(g->b + 16 + WIRE_LOG_OFF_IDENT, 'I', WIRE_IDENT_LEN);
	memset(g->b + 16 + WIRE_LOG_OFF_SUBSYS, 'S', WIRE_SUBSYS_LEN);
	memset(g->b + 16 + WIRE_LOG_OFF_FILE, 'F', WIRE_FILE_LEN);
	send_case("names-without-nul", LOG, g);
	log.ident = (struct wire_str){ STR("../../x-hostile") };
	log.file = (struct wire_str){ STR("../../../../etc/passwd") };
	send_case("ident-relative-path", LOG, build(&log, STR("path ident")));
	log.ident = (struct wire_str){ STR("/tmp/x-hostile") };
	log.subsys = (struct wire_str){ STR("/etc/shadow") };
	send_case("ident-absolute-path", LOG, build(&log, STR("path ident")));
	log = default_log();
	log.ident = (struct wire_str){ STR("a b\tc\x1b[31m") };
	send_case("ident-controls", LOG, build(&log, STR("control ident")));
}

static void texts(void)
{
	static uint8_t every[256], big[UDP_MAX - WIRE_PREFIX_LEN];
	static const size_t big_lens[] = { 4096, 8192, sizeof(big) };
	char name[32];

	send_case("empty-text", LOG, text_case(NULL, 0));
	for (int i = 0; i < 256; i++)
		every[i] = i;
	send_case("every-byte", LOG, text_case(every, sizeof(every)));
	send_case("forged-line", LOG, text_case(STR("ok\n2026-11-29T00:00:00.000000000Z 10.0.0.1:1 forged[1] "
						     "MAIN FATAL x.c:1 2026-11-29T00:00:00.000000Z forged")));
	send_case("forged-line-cr", LOG, text_case(STR("ok\r2026-11-29T00:00:00.000000000Z 10.0.0.1:1 forged")));
	send_case("terminal-escapes", LOG, text_case(STR("\x1b[2J\x1b[31mred\x1b]0;title\x07\x1b[0m\x9b" "31m")));
	send_case("invalid-utf8", LOG, text_case(STR("\xff\xfe\xc3\x28\xa0\xa1\xe2\x28\xa1\xed\xa0\x80\xf5\x80")));
	send_case("overlong-utf8", LOG, text_case(STR("\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf\xc1\xbf")));
	send_case("unicode-separators", LOG, text_case(STR("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c\xc2\x85" "d")));
	send_case("nul-in-middle", LOG, text_case(STR("before\0after")));
	send_case("trailing-newline-nul", LOG, text_case(STR("logsend style\n\0")));
	memset(big, 'b', sizeof(big));
	for (size_t i = 0; i < sizeof(big_lens) / sizeof(big_lens[0]); i++) {
		big[big_lens[i] - 1] = '\n';	/* a newline at the very end of the biggest line too */
		snprintf(name, sizeof(name), "text-%zu", big_lens[i]);
		send_case(name, LOG, text_case(big, big_lens[i]));
		big[big_lens[i] - 1] = 'b';
	}
}

static void fields(void)
{
	static const uint8_t levels[] = { 0, 2, 9, 255 };
	struct wire_log log = default_log();
	struct dgram *g;
	char name[32];

	for (size_t i = 0; i < sizeof(levels); i++) {
		log.level = levels[i];
		snprintf(name, sizeof(name), "level-%u", levels[i]);
		send_case(name, LOG, build(&log, STR("odd level")));
	}
	g = text_case(STR("padding"));
	memset(g->b + 16 + WIRE_LOG_OFF_PAD, 0xff, 3);
	memset(g->b + 3, 0xff, 5);		/* timeslot, arfcn, signal, snr */
	memset(g->b + 12, 0xff, 4);		/* sub_type, antenna, sub_slot, res */
	send_case("nonzero-padding", LOG, g);
}

static void other_types(void)
{
	static const uint8_t types[] = { 0x01, 0x02, 0x0d, 0xff };
	struct dgram *g;
	char name[32];

	for (size_t i = 0; i < sizeof(types); i++) {
		g = text_case(STR("\x06\x1a\x00\x00\x00\x00 not a log line"));
		g->b[WIRE_OFF_TYPE] = types[i];
		snprintf(name, sizeof(name), "type-0x%02x", types[i]);
		send_case(name, OTHER, g);
	}
	g->len = WIRE_GSMTAP_HDR_LEN;	/* header only: fine for a type without a log header */
	send_case("type-0xff-header-only", OTHER, g);
}

static void connect_to(const char *dst, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (inet_pton(AF_INET, dst, &sin.sin_addr) != 1)
		errx(2, "bad IPv4 destination %s", dst);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		err(1, "socket/connect");
}

int main(int argc, char **argv)
{
	const char *dst = "127.0.0.1";
	int port = WIRE_PORT, opt;

	while ((opt = getopt(argc, argv, "d:p:")) != -1) {
		switch (opt) {
		case 'd': dst = optarg; break;
		case 'p': port = atoi(optarg); break;
		default: errx(2, "usage: gsmtap-hostile [-d IPV4] [-p PORT]");
		}
	}
	connect_to(dst, port);
	truncated();
	bad_headers();
	names();
	texts();
	fields();
	other_types();
	printf("sent=%lu log=%lu malformed=%lu other=%lu\n", sent, counts[LOG], counts[MALFORMED], counts[OTHER]);
	return 0;
}
