/* decode.c: captured frames to records, shared by the capture and file inputs: link layer, IP fragments, the filter. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "frame.h"

/* Link types one file may mix (pcapng interfaces); a filter is compiled for each. */
#define LINKTYPES_MAX	8
#define IPV6_HDR_LEN	40
#define IPV4_HDR_LEN	20

/* Later fragments of UDP datagrams: IPv4 with MF or an offset, IPv6 with a
 * fragment header before UDP. */
#define FRAGMENTS_FILTER	"(ip proto 17 and ip[6:2] & 0x3fff != 0) or (ip6 and ip6[6] == 44 and ip6[40] == 17)"

struct compiled {
	int dlt;
	bool ok;
	struct bpf_program prog;
};

struct decode {
	char *filter;
	struct reasm *reasm;		/*!< taken at the first fragment: most captures have none */
	uint64_t unreassembled;		/*!< fragments that found no memory to wait in */
	struct decode_stats st;
	struct compiled by_dlt[LINKTYPES_MAX];
	size_t n_dlt;
	struct compiled *raw;		/*!< the filter for reassembled datagrams */
	char why[PCAP_ERRBUF_SIZE];	/*!< libpcap's words for the last failed compile */
	char error[PCAP_ERRBUF_SIZE + 128];
	uint8_t packet[IPV6_HDR_LEN + 65536];	/*!< a reassembled datagram as raw IP, for the filter */
};

/* Compile the filter for one link type; libpcap needs a handle of that type. */
static struct compiled *compiled_for(struct decode *d, int dlt)
{
	struct compiled *c;
	pcap_t *dead;

	for (size_t i = 0; i < d->n_dlt; i++)
		if (d->by_dlt[i].dlt == dlt)
			return &d->by_dlt[i];
	if (d->n_dlt == LINKTYPES_MAX) {
		snprintf(d->error, sizeof(d->error), "more than %d link types in one input", LINKTYPES_MAX);
		return NULL;
	}
	c = &d->by_dlt[d->n_dlt++];
	c->dlt = dlt;
	dead = pcap_open_dead(dlt, 65535);
	if (!dead) {
		snprintf(d->error, sizeof(d->error), "out of memory");
		return c;
	}
	c->ok = pcap_compile(dead, &c->prog, d->filter, 1, PCAP_NETMASK_UNKNOWN) == 0;
	if (!c->ok) {
		snprintf(d->why, sizeof(d->why), "%s", pcap_geterr(dead));
		snprintf(d->error, sizeof(d->error), "capture filter '%s' does not apply to link type %s: %s",
			 d->filter, pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?",
			 d->why);
	}
	pcap_close(dead);
	return c;
}

static bool passes(const struct compiled *c, const uint8_t *pkt, size_t len)
{
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	return pcap_offline_filter(&c->prog, &h, pkt) != 0;
}

struct decode *decode_new(const char *filter, char *err, size_t errlen)
{
	struct decode *d = calloc(1, sizeof(*d));

	if (!d || !(d->filter = strdup(filter))) {
		snprintf(err, errlen, "out of memory");
		decode_free(d);
		return NULL;
	}
	/* Ethernet takes every filter primitive, so this is the syntax check. */
	if (!compiled_for(d, DLT_EN10MB)->ok) {
		snprintf(err, errlen, "bad capture filter '%s': %s", filter, d->why);
		decode_free(d);
		return NULL;
	}
	/* A filter about the link layer cannot judge a reassembled datagram;
	 * the default one does then. */
	d->raw = compiled_for(d, DLT_RAW);
	if (!d->raw->ok) {
		char *user = d->filter;

		d->filter = (char *)DECODE_FILTER_DEFAULT;
		d->n_dlt--;
		d->raw = compiled_for(d, DLT_RAW);
		d->filter = user;
	}
	return d;
}

int decode_kernel_filter(const char *filter, char *out, size_t room)
{
	int n = snprintf(out, room, "(%s) or %s", filter, FRAGMENTS_FILTER);

	return n < 0 || (size_t)n >= room ? -ENOSPC : 0;
}

/* The datagram as the raw IP packet it was before fragmentation, so that the
 * filter sees its addresses and ports. */
static size_t as_raw_ip(struct decode *d, const struct frame_fragment *f, const uint8_t *payload, size_t len)
{
	uint8_t *p = d->packet;
	size_t hdr = f->family == AF_INET ? IPV4_HDR_LEN : IPV6_HDR_LEN;
	size_t total = hdr + len;

	memset(p, 0, hdr);
	if (f->family == AF_INET) {
		p[0] = 0x45;
		p[2] = total > 0xffff ? 0xff : total >> 8;
		p[3] = total > 0xffff ? 0xff : total & 0xff;
		p[8] = 64;
		p[9] = 17;
		memcpy(p + 12, f->src, 4);
		memcpy(p + 16, f->dst, 4);
	} else {
		p[0] = 0x60;
		p[4] = len >> 8;
		p[5] = len & 0xff;
		p[6] = 17;
		p[7] = 64;
		memcpy(p + 8, f->src, 16);
		memcpy(p + 24, f->dst, 16);
	}
	memcpy(p + hdr, payload, len);
	return total;
}

static int deliver(struct decode *d, uint64_t ts_ns, struct rx_record *r, enum frame_result res,
		   rx_deliver_cb cb, void *ctx)
{
	if (res == FRAME_TRUNCATED) {
		d->st.truncated++;
		return 0;
	}
	r->rx_time.tv_sec = ts_ns / 1000000000u;
	r->rx_time.tv_nsec = ts_ns % 1000000000u;
	cb(ctx, r);
	return 1;
}

static int fragment(struct decode *d, uint64_t ts_ns, const struct frame_fragment *f,
		    rx_deliver_cb cb, void *ctx)
{
	struct rx_record r = { 0 };
	const uint8_t *payload;
	size_t len;

	if (!d->reasm && !(d->reasm = reasm_new())) {
		d->unreassembled++;
		return 0;
	}
	reasm_expire(d->reasm, ts_ns);
	if (reasm_add(d->reasm, f, ts_ns, &payload, &len) != 1)
		return 0;
	if (!d->raw->ok || !passes(d->raw, d->packet, as_raw_ip(d, f, payload, len)))
		return 0;
	return deliver(d, ts_ns, &r, frame_udp(f->family, f->src, f->dst, payload, len, &r), cb, ctx);
}

int decode_frame(struct decode *d, int dlt, uint64_t ts_ns, const uint8_t *frame, size_t caplen,
		 bool prefiltered, rx_deliver_cb cb, void *ctx)
{
	struct rx_record r = { 0 };
	struct frame_fragment f;
	enum frame_result res = frame_decode(dlt, frame, caplen, &r, &f);

	/* A fragment is judged by the filter once it is whole. */
	if (res != FRAME_FRAGMENT && !prefiltered) {
		const struct compiled *c = compiled_for(d, dlt);

		if (!c || !c->ok)
			return -EINVAL;
		if (!passes(c, frame, caplen))
			return 0;
	}
	d->st.frames++;
	switch (res) {
	case FRAME_FRAGMENT:
		return fragment(d, ts_ns, &f, cb, ctx);
	case FRAME_NOT_UDP:
		d->st.not_udp++;
		return 0;
	default:
		return deliver(d, ts_ns, &r, res, cb, ctx);
	}
}

void decode_finish(struct decode *d)
{
	if (d->reasm)
		reasm_give_up_all(d->reasm);
}

void decode_stats(const struct decode *d, struct decode_stats *out)
{
	*out = d->st;
	if (d->reasm)
		reasm_stats(d->reasm, &out->frag);
	else
		out->frag = (struct reasm_stats){ 0 };
	/* without memory a fragment is a datagram that cannot be completed */
	out->frag.fragments += d->unreassembled;
	out->frag.incomplete += d->unreassembled;
}

size_t decode_figures(const struct decode *d, char *buf, size_t room)
{
	struct decode_stats st;
	int n;

	decode_stats(d, &st);
	n = snprintf(buf, room, " frames=%llu not_udp=%llu truncated=%llu fragments=%llu reassembled=%llu incomplete=%llu",
		     (unsigned long long)st.frames, (unsigned long long)st.not_udp,
		     (unsigned long long)st.truncated, (unsigned long long)st.frag.fragments,
		     (unsigned long long)st.frag.reassembled, (unsigned long long)st.frag.incomplete);
	return n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
}

const char *decode_error(const struct decode *d)
{
	return d->error;
}

void decode_free(struct decode *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_dlt; i++)
		if (d->by_dlt[i].ok)
			pcap_freecode(&d->by_dlt[i].prog);
	reasm_free(d->reasm);
	free(d->filter);
	free(d);
}
