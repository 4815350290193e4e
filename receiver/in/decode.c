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
	bool keep_cut;			/*!< deliver datagrams the snap length cut (decode_keep_cut()) */
	struct reasm *reasm;		/*!< taken at the first fragment: most captures have none */
	uint64_t unreassembled;		/*!< fragments that found no memory to wait in */
	struct decode_stats st;
	/* One filter per link type met, as many as the file mixes (pcapng
	 * interfaces): at most one per 16-bit LINKTYPE_ value. */
	struct compiled *by_dlt;
	size_t n_dlt, cap_dlt, last_dlt;	/*!< last_dlt: the one used last, looked at first */
	struct compiled raw;		/*!< the filter for reassembled datagrams */
	char why[PCAP_ERRBUF_SIZE];	/*!< libpcap's words for the last failed compile */
	char error[PCAP_ERRBUF_SIZE + 128];
	uint8_t packet[IPV6_HDR_LEN + 65536];	/*!< a reassembled datagram as raw IP, for the filter */
};

/* Compile \a filter for one link type into \a c; libpcap needs a handle of that type.
 * \returns -ENOMEM when there is no handle; else c->ok says whether it applies, and
 * d->why, when not, why not. */
static int compile(struct decode *d, const char *filter, int dlt, struct compiled *c)
{
	pcap_t *dead = pcap_open_dead(dlt, 65535);

	*c = (struct compiled){ .dlt = dlt };
	if (!dead)
		return -ENOMEM;
	c->ok = pcap_compile(dead, &c->prog, filter, 1, PCAP_NETMASK_UNKNOWN) == 0;
	if (!c->ok)
		snprintf(d->why, sizeof(d->why), "%s", pcap_geterr(dead));
	pcap_close(dead);
	return 0;
}

/* The filter for link type \a dlt, compiled the first time it is met.
 * \returns NULL when memory ran out (d->error says so) */
static const struct compiled *compiled_for(struct decode *d, int dlt)
{
	struct compiled *c;

	if (d->n_dlt && d->by_dlt[d->last_dlt].dlt == dlt)
		return &d->by_dlt[d->last_dlt];
	for (size_t i = 0; i < d->n_dlt; i++) {
		if (d->by_dlt[i].dlt == dlt) {
			d->last_dlt = i;
			return &d->by_dlt[i];
		}
	}
	if (d->n_dlt == d->cap_dlt) {
		size_t cap = d->cap_dlt ? 2 * d->cap_dlt : 4;

		c = reallocarray(d->by_dlt, cap, sizeof(*c));
		if (!c)
			goto oom;
		d->by_dlt = c;
		d->cap_dlt = cap;
	}
	c = &d->by_dlt[d->n_dlt];
	if (compile(d, d->filter, dlt, c))
		goto oom;
	d->last_dlt = d->n_dlt++;
	return c;
oom:
	snprintf(d->error, sizeof(d->error), "out of memory");
	return NULL;
}

static bool passes(const struct compiled *c, const uint8_t *pkt, size_t len)
{
	struct pcap_pkthdr h = { .caplen = len, .len = len };

	return pcap_offline_filter(&c->prog, &h, pkt) != 0;
}

struct decode *decode_new(const char *filter, char *err, size_t errlen)
{
	struct decode *d = calloc(1, sizeof(*d));
	const struct compiled *ether;

	if (!d || !(d->filter = strdup(filter))) {
		snprintf(err, errlen, "out of memory");
		decode_free(d);
		return NULL;
	}
	/* Ethernet takes every filter primitive, so this is the syntax check. */
	ether = compiled_for(d, DLT_EN10MB);
	if (!ether || !ether->ok) {
		snprintf(err, errlen, ether ? "bad capture filter '%s': %s" : "out of memory", filter, d->why);
		decode_free(d);
		return NULL;
	}
	/* A filter about the link layer cannot judge a reassembled datagram;
	 * the default one does then. */
	if (compile(d, filter, DLT_RAW, &d->raw) ||
	    (!d->raw.ok && compile(d, DECODE_FILTER_DEFAULT, DLT_RAW, &d->raw))) {
		snprintf(err, errlen, "out of memory");
		decode_free(d);
		return NULL;
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
	if (res == FRAME_CUT && d->keep_cut)
		d->st.cut++;
	else if (res != FRAME_UDP) {
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
	if (!d->raw.ok || !passes(&d->raw, d->packet, as_raw_ip(d, f, payload, len)))
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

		if (!c)
			return -ENOMEM;
		if (!c->ok) {
			/* An NFLOG or USB interface beside the one we want: read on. */
			if (!d->st.unfilterable++)
				d->st.unfilterable_dlt = dlt;
			return 0;
		}
		if (!passes(c, frame, caplen)) {
			d->st.unmatched++;
			return 0;
		}
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

void decode_keep_cut(struct decode *d)
{
	d->keep_cut = true;
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
	n = snprintf(buf, room, " frames=%llu unmatched=%llu unfilterable=%llu not_udp=%llu truncated=%llu "
		     "fragments=%llu reassembled=%llu incomplete=%llu",
		     (unsigned long long)st.frames, (unsigned long long)st.unmatched,
		     (unsigned long long)st.unfilterable, (unsigned long long)st.not_udp,
		     (unsigned long long)st.truncated, (unsigned long long)st.frag.fragments,
		     (unsigned long long)st.frag.reassembled, (unsigned long long)st.frag.incomplete);
	return n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
}

size_t decode_unread_words(const struct decode_stats *st, const char *filter, char *buf, size_t room)
{
	const char *name = pcap_datalink_val_to_name(st->unfilterable_dlt);
	char type[64];
	size_t n = 0;
	int k;

	if (room)
		buf[0] = '\0';
	if (st->unmatched) {
		k = snprintf(buf, room, "%llu frame%s did not match \"%s\" (-f sets the filter)",
			     (unsigned long long)st->unmatched, st->unmatched == 1 ? "" : "s", filter);
		n = k < 0 ? 0 : (size_t)k < room ? (size_t)k : room - 1;
	}
	if (st->unfilterable) {
		if (name)
			snprintf(type, sizeof(type), "%s (%d)", name, st->unfilterable_dlt);
		else
			snprintf(type, sizeof(type), "%d", st->unfilterable_dlt);
		k = snprintf(buf + n, room - n, "%s%llu frame%s of link type %s, which the capture filter "
			     "cannot apply to, %s skipped", n ? "; " : "", (unsigned long long)st->unfilterable,
			     st->unfilterable == 1 ? "" : "s", type, st->unfilterable == 1 ? "was" : "were");
		n += k < 0 ? 0 : (size_t)k < room - n ? (size_t)k : room - n - 1;
	}
	return n;
}

void decode_stats_add(struct decode_stats *sum, const struct decode_stats *add)
{
	if (!sum->unfilterable)
		sum->unfilterable_dlt = add->unfilterable_dlt;
	sum->frames += add->frames;
	sum->unmatched += add->unmatched;
	sum->unfilterable += add->unfilterable;
	sum->not_udp += add->not_udp;
	sum->truncated += add->truncated;
	sum->cut += add->cut;
	sum->frag.fragments += add->frag.fragments;
	sum->frag.reassembled += add->frag.reassembled;
	sum->frag.incomplete += add->frag.incomplete;
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
	if (d->raw.ok)
		pcap_freecode(&d->raw.prog);
	free(d->by_dlt);
	reasm_free(d->reasm);
	free(d->filter);
	free(d);
}
