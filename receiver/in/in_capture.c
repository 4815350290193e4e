/* in_capture.c: the live capture input (-i): GSMTAP crossing an interface, taken with libpcap beside any socket on the port. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode.h"
#include "input.h"

/* Frames handed over per read, so that a flood does not starve signals. */
#define CAPTURE_BATCH	256
/* Room for the user's filter and the fragment clause added to it. */
#define KERNEL_FILTER_MAX	4096
/* How often the interface's name is looked up, to notice it was deleted. */
#define VANISH_CHECK_NS		200000000ll

struct in_capture {
	struct input in;
	pcap_t *pcap;
	int dlt;
	int buffer;
	char filter[256];		/*!< as the user gave it, for the start-up line */
	struct decode *decode;
	uint64_t kernel_drops;
	uint64_t delivered;
	unsigned int ifindex;		/*!< the interface's at the start; 0 for "any" */
	long long next_check_ns;	/*!< CLOCK_MONOTONIC_COARSE of the next lookup */
	bool vanished;			/*!< its name no longer names it: end once the ring is read */
	bool gone;			/*!< the interface went away: the input has ended */
	char error[PCAP_ERRBUF_SIZE + 64];
	rx_deliver_cb cb;		/*!< valid during capture_read() */
	void *ctx;
	int batch;			/*!< delivered in this read */
};

static void frame_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct in_capture *c = (struct in_capture *)user;
	/* Opened with nanosecond precision: tv_usec holds nanoseconds. */
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;

	c->batch += decode_frame(c->decode, c->dlt, ts, bytes, h->caplen, true, c->cb, c->ctx) > 0;
}

/* An error from a live capture means the interface is gone (down, removed):
 * libpcap has no transient read errors.  It is said once, as the input's end. */
static int capture_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct in_capture *c = (struct in_capture *)in;
	int rc;

	if (c->gone)
		return INPUT_END;
	c->cb = cb;
	c->ctx = ctx;
	c->batch = 0;
	rc = pcap_dispatch(c->pcap, CAPTURE_BATCH, frame_cb, (u_char *)c);
	c->delivered += c->batch;
	if (rc == PCAP_ERROR || (c->vanished && c->batch == 0)) {
		snprintf(c->error, sizeof(c->error), "capture on %s stopped: %s", in->name,
			 rc == PCAP_ERROR ? pcap_geterr(c->pcap) : "the interface disappeared");
		c->gone = true;
		decode_finish(c->decode);
		return c->batch ? c->batch : INPUT_END;
	}
	return c->batch;
}

/* The kernel reports a deleted interface to a packet socket once, as it goes
 * down, and libpcap takes that report for "down, may come back" when the
 * interface is not yet unregistered at that moment: no error follows, and the
 * descriptor never wakes again.  So the name is looked up on every turn; once
 * it is gone the input turns always-ready (fd -1), and the loop reads what the
 * ring still holds, then the end. */
static void notice_vanished(struct in_capture *c)
{
	struct timespec now;

	if (c->ifindex == 0 || c->vanished)
		return;
	/* a lookup costs a socket; one per VANISH_CHECK_NS is plenty */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (now.tv_sec * 1000000000ll + now.tv_nsec < c->next_check_ns)
		return;
	c->next_check_ns = now.tv_sec * 1000000000ll + now.tv_nsec + VANISH_CHECK_NS;
	if (if_nametoindex(c->in.name) == c->ifindex)
		return;
	c->vanished = true;
	c->in.fd = -1;
}

static void capture_refresh(struct input *in)
{
	struct in_capture *c = (struct in_capture *)in;
	struct pcap_stat ps;

	if (!c->gone && pcap_stats(c->pcap, &ps) == 0)
		c->kernel_drops = (uint64_t)ps.ps_drop + ps.ps_ifdrop;
	notice_vanished(c);
}

static void capture_stats(const struct input *in, struct input_stats *out)
{
	const struct in_capture *c = (const struct in_capture *)in;
	struct decode_stats ds;

	decode_stats(c->decode, &ds);
	*out = (struct input_stats){
		.delivered = c->delivered,
		.kernel_drops = c->kernel_drops,
		.lost = ds.frag.incomplete,
		.failed = c->gone,
	};
}

static void capture_describe(const struct input *in, char *buf, size_t room)
{
	const struct in_capture *c = (const struct in_capture *)in;

	snprintf(buf, room, "capturing on %s (capture buffer %d bytes), filter \"%s\"", in->name, c->buffer, c->filter);
}

static void capture_figures(const struct input *in, char *buf, size_t room)
{
	const struct in_capture *c = (const struct in_capture *)in;
	size_t n = decode_figures(c->decode, buf, room);

	snprintf(buf + n, room - n, " kernel_drops=%llu", (unsigned long long)c->kernel_drops);
}

static const char *capture_error(const struct input *in)
{
	return ((const struct in_capture *)in)->error;
}

static void capture_finish(struct input *in)
{
	decode_finish(((struct in_capture *)in)->decode);
}

static void capture_close(struct input *in)
{
	struct in_capture *c = (struct in_capture *)in;

	pcap_close(c->pcap);
	decode_free(c->decode);
	free(c);
}

static const struct input_ops capture_ops = {
	.kind = "capture",
	.read = capture_read,
	.refresh = capture_refresh,
	.stats = capture_stats,
	.describe = capture_describe,
	.figures = capture_figures,
	.error = capture_error,
	.finish = capture_finish,
	.close = capture_close,
};

/* libpcap reports a failed activation through its return code, with the text
 * in pcap_geterr() for errors and in pcap_statustostr() for the rest. */
static const char *activate_error(pcap_t *p, int rc)
{
	return rc == PCAP_ERROR || rc == PCAP_ERROR_NO_SUCH_DEVICE || rc == PCAP_ERROR_PERM_DENIED ?
	       pcap_geterr(p) : pcap_statustostr(rc);
}

static int set_filter(struct in_capture *c, const char *filter, char *err)
{
	char expr[KERNEL_FILTER_MAX];
	struct bpf_program prog;
	int rc;

	if (decode_kernel_filter(filter, expr, sizeof(expr))) {
		snprintf(err, INPUT_ERR_MAX, "capture filter too long");
		return -1;
	}
	if (pcap_compile(c->pcap, &prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(err, INPUT_ERR_MAX, "bad capture filter '%s': %s", filter, pcap_geterr(c->pcap));
		return -1;
	}
	rc = pcap_setfilter(c->pcap, &prog);
	if (rc)
		snprintf(err, INPUT_ERR_MAX, "cannot set capture filter: %s", pcap_geterr(c->pcap));
	pcap_freecode(&prog);
	return rc;
}

/*! Capture on interface \a iface with cfg->filter (BPF), nanosecond timestamps,
 *  immediate mode and a cfg->buffer-byte kernel ring.  Coexists with any socket
 *  bound to the port, libosmocore's sink included. */
struct input *in_capture_open(const char *iface, const struct input_config *cfg, char *err)
{
	struct in_capture *c = calloc(1, sizeof(*c));
	char errbuf[PCAP_ERRBUF_SIZE];
	int rc;

	if (!c) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		return NULL;
	}
	c->in = (struct input){ .ops = &capture_ops, .live = true };
	snprintf(c->in.name, sizeof(c->in.name), "%s", iface);
	c->buffer = cfg->buffer;
	snprintf(c->filter, sizeof(c->filter), "%s", cfg->filter);
	c->decode = decode_new(cfg->filter, err, INPUT_ERR_MAX);
	if (!c->decode)
		goto fail;
	c->pcap = pcap_create(iface, errbuf);
	if (!c->pcap) {
		snprintf(err, INPUT_ERR_MAX, "cannot capture on %s", errbuf);
		goto fail;
	}
	pcap_set_snaplen(c->pcap, 65535 + 256);
	pcap_set_immediate_mode(c->pcap, 1);
	pcap_set_tstamp_precision(c->pcap, PCAP_TSTAMP_PRECISION_NANO);
	if (cfg->buffer > 0)
		pcap_set_buffer_size(c->pcap, cfg->buffer);
	rc = pcap_activate(c->pcap);
	if (rc < 0) {
		snprintf(err, INPUT_ERR_MAX, "cannot capture on %s: %s", iface, activate_error(c->pcap, rc));
		goto fail;
	}
	if (pcap_setnonblock(c->pcap, 1, errbuf)) {
		snprintf(err, INPUT_ERR_MAX, "cannot capture on %s: %s", iface, errbuf);
		goto fail;
	}
	if (set_filter(c, cfg->filter, err))
		goto fail;
	c->dlt = pcap_datalink(c->pcap);
	c->ifindex = if_nametoindex(iface);
	c->in.fd = pcap_get_selectable_fd(c->pcap);
	return &c->in;
fail:
	if (c->pcap)
		pcap_close(c->pcap);
	decode_free(c->decode);
	free(c);
	errno = EINVAL;
	return NULL;
}
