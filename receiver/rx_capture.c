/* rx_capture.c: GSMTAP taken from libpcap: a live interface (-i) or a pcap/pcapng file (-r). */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx_capture.h"
#include "rx_frame.h"

/* Packets handed over per read, so that a big file does not starve signals. */
#define RX_CAPTURE_BATCH	256

struct rx_capture {
	pcap_t *pcap;
	int dlt;
	char name[256];
	struct rx_capture_stats stats;
	rx_deliver_cb cb;		/*!< valid during rx_capture_read() */
	void *ctx;
	int delivered;
};

static void frame_cb(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct rx_capture *c = (struct rx_capture *)user;
	struct rx_record r = { 0 };

	c->stats.frames++;
	switch (rx_frame_udp(c->dlt, bytes, h->caplen, &r)) {
	case RX_FRAME_OK:
		/* Opened with nanosecond precision: tv_usec holds nanoseconds. */
		r.rx_time.tv_sec = h->ts.tv_sec;
		r.rx_time.tv_nsec = h->ts.tv_usec;
		c->cb(c->ctx, &r);
		c->delivered++;
		break;
	case RX_FRAME_NOT_UDP:
		c->stats.not_udp++;
		break;
	case RX_FRAME_TRUNCATED:
		c->stats.truncated++;
		break;
	}
}

static int apply_filter(pcap_t *p, const char *filter, char *errbuf)
{
	struct bpf_program prog;
	int rc;

	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "bad capture filter '%s': %s", filter, pcap_geterr(p));
		return -1;
	}
	rc = pcap_setfilter(p, &prog);
	if (rc)
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "cannot set capture filter: %s", pcap_geterr(p));
	pcap_freecode(&prog);
	return rc;
}

static struct rx_capture *wrap(pcap_t *p, const char *name, const char *filter, char *errbuf)
{
	struct rx_capture *c;

	if (apply_filter(p, filter, errbuf))
		goto fail;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "out of memory");
		goto fail;
	}
	c->pcap = p;
	c->dlt = pcap_datalink(p);
	snprintf(c->name, sizeof(c->name), "%s", name);
	return c;
fail:
	pcap_close(p);
	return NULL;
}

/* libpcap reports a failed activation through its return code, with the text
 * in pcap_geterr() for errors and in pcap_statustostr() for the rest. */
static const char *activate_error(pcap_t *p, int rc)
{
	return rc == PCAP_ERROR || rc == PCAP_ERROR_NO_SUCH_DEVICE || rc == PCAP_ERROR_PERM_DENIED ?
	       pcap_geterr(p) : pcap_statustostr(rc);
}

struct rx_capture *rx_capture_open_live(const char *iface, const char *filter, int bufsize, char *errbuf)
{
	pcap_t *p = pcap_create(iface, errbuf);
	int rc;

	if (!p)
		return NULL;
	pcap_set_snaplen(p, 65535 + 256);
	pcap_set_immediate_mode(p, 1);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	if (bufsize > 0)
		pcap_set_buffer_size(p, bufsize);
	rc = pcap_activate(p);
	if (rc < 0) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s: %s", iface, activate_error(p, rc));
		pcap_close(p);
		return NULL;
	}
	if (pcap_setnonblock(p, 1, errbuf)) {
		pcap_close(p);
		return NULL;
	}
	return wrap(p, iface, filter, errbuf);
}

struct rx_capture *rx_capture_open_file(const char *path, const char *filter, char *errbuf)
{
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);

	return p ? wrap(p, path, filter, errbuf) : NULL;
}

int rx_capture_fd(const struct rx_capture *c)
{
	return pcap_get_selectable_fd(c->pcap);
}

int rx_capture_read(struct rx_capture *c, rx_deliver_cb cb, void *ctx)
{
	int rc;

	c->cb = cb;
	c->ctx = ctx;
	c->delivered = 0;
	rc = pcap_dispatch(c->pcap, RX_CAPTURE_BATCH, frame_cb, (u_char *)c);
	if (rc == PCAP_ERROR)
		return -2;
	if (rc == 0 && pcap_file(c->pcap))
		return -1;	/* a file gives 0 only at its end */
	return c->delivered;
}

const char *rx_capture_error(const struct rx_capture *c)
{
	return pcap_geterr(c->pcap);
}

const char *rx_capture_name(const struct rx_capture *c)
{
	return c->name;
}

void rx_capture_stats(struct rx_capture *c, struct rx_capture_stats *out)
{
	struct pcap_stat ps;

	if (!pcap_file(c->pcap) && pcap_stats(c->pcap, &ps) == 0)
		c->stats.kernel_drops = (uint64_t)ps.ps_drop + ps.ps_ifdrop;
	*out = c->stats;
}

void rx_capture_close(struct rx_capture *c)
{
	if (!c)
		return;
	pcap_close(c->pcap);
	free(c);
}
