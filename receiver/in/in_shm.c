/* in_shm.c: the shared-memory input (--shm): lines of local programs in deferred mode, taken from their rings with no UDP at all. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drain.h"
#include "input.h"
#include "pcapng.h"
#include "wire.h"

/* Lines delivered per read. */
#define SHM_BATCH	256

/*
 * Each ring's lines become datagrams as the producer would have sent them
 * (the same 100-byte prefix and text, the same sequence numbers), from a
 * source that names the ring: 127.0.0.1, port = the ring's number, which the
 * ring keeps across restarts of the collector.  The stream table thus keeps
 * one stream per ring, and the pcapng shows loopback traffic to port 4729,
 * which is what the lines would have been without the ring.  The receive
 * time is the line's own stamp in the ring (when it was logged), so that the
 * lines of one read, up to SHM_BATCH of them, do not all share the time of
 * the read: ties that a reader merging rotated files could only break by
 * guessing (gsmtap-logstat).  Who offered the
 * ring (SO_PEERCRED) is said when its lane is taken, and goes with its first
 * datagram as a comment, which Wireshark shows with the packet.
 */

/*! A lane's own: what its first datagram carries. */
struct lane_note {
	bool told;
	char comment[PCAPNG_COMMENT_MAX];
};

struct in_shm {
	struct input in;
	struct drain *drain;
	void (*say)(const char *line);
	uint64_t delivered;
	int last_error;
	/* The batch being delivered: */
	rx_deliver_cb cb;
	void *cb_ctx;
	struct timespec now;			/*!< when the batch was read */
	uint64_t last_ns;			/*!< the last line's receive time */
	uint8_t datagram[WIRE_DATAGRAM_MAX];	/*!< one at a time: a record lives only during cb */
};

static void loopback(struct sockaddr_storage *ss, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons(port);
}

/* A line's receive time: its stamp, made later than the line before (lanes
 * and rings are read one after the other, and lines share a microsecond),
 * so that times are distinct and increase, and never later than the read
 * (a stamp is the producer's word). */
static struct timespec line_time(struct in_shm *s, const struct shmring_rec *rec)
{
	uint64_t now = (uint64_t)s->now.tv_sec * 1000000000u + (uint64_t)s->now.tv_nsec;
	uint64_t t = (uint64_t)rec->sec * 1000000000u + (uint64_t)rec->usec * 1000u;

	if (t > now)
		t = now;
	if (t <= s->last_ns)
		t = s->last_ns + 1;
	s->last_ns = t;
	return (struct timespec){ (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
}

/* The text is copied once out of the ring, so that what the outputs see
 * cannot change under them. */
static bool line_cb(void *ctx, struct drain_ring *ring, const struct shmring_line *line)
{
	struct in_shm *s = ctx;
	struct rx_record r = { .rx_time = line_time(s, &line->rec), .data = s->datagram };
	struct lane_note *note = ring->user;
	struct wire_log log;

	shmring_line_to_wire(&ring->rd, line, &log);
	wire_encode_prefix(s->datagram, &log);
	memcpy(s->datagram + WIRE_PREFIX_LEN, line->text, line->rec.text_len);
	r.len = WIRE_PREFIX_LEN + line->rec.text_len;
	loopback(&r.src, ring->port);
	loopback(&r.dst, WIRE_PORT);
	if (note && !note->told) {
		r.comment = note->comment;
		note->told = true;
	}
	s->cb(s->cb_ctx, &r);
	return true;
}

static int attach_cb(void *ctx, struct drain_ring *r)
{
	struct in_shm *s = ctx;
	struct lane_note *note = calloc(1, sizeof(*note));
	char who[160], line[256];

	if (!note)
		return -ENOMEM;
	drain_describe(r, who, sizeof(who));
	snprintf(note->comment, sizeof(note->comment), "gsmtap-logd --shm: 127.0.0.1:%u is a lane of the ring of %s",
		 r->port, who);
	r->user = note;
	if (s->say) {
		snprintf(line, sizeof(line), "ring of %s taken: its lines come from 127.0.0.1:%u", who, r->port);
		s->say(line);
	}
	return 0;
}

static void detach_cb(void *ctx, struct drain_ring *r)
{
	(void)ctx;
	free(r->user);
}

static void say_cb(void *ctx, const char *line)
{
	struct in_shm *s = ctx;

	if (s->say)
		s->say(line);
}

static int shm_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct in_shm *s = (struct in_shm *)in;
	size_t n;

	drain_events(s->drain);
	s->cb = cb;
	s->cb_ctx = ctx;
	clock_gettime(CLOCK_REALTIME, &s->now);
	n = drain_read(s->drain, SHM_BATCH, line_cb, s);
	s->delivered += n;
	return (int)n;
}

/* A loop turn starts after the outputs wrote the last one's records: only
 * now are the lines read then given back to their producers, so that a
 * collector killed before writing them leaves them for the next. */
static void shm_refresh(struct input *in)
{
	drain_release(((struct in_shm *)in)->drain);
}

static void shm_stats(const struct input *in, struct input_stats *out)
{
	const struct in_shm *s = (const struct in_shm *)in;
	struct drain_counts c;

	drain_counts(s->drain, &c);
	*out = (struct input_stats){ .delivered = s->delivered, .kernel_drops = c.ring_drops,
				     .lost = drain_sat_add(c.abandoned, c.corrupt) };
}

static void shm_describe(const struct input *in, char *buf, size_t room)
{
	snprintf(buf, room, "listening for deferred-mode rings on %s (their lines come from 127.0.0.1:N, "
		 "N the number of the ring's lane: one per logging thread)", in->name);
}

static void shm_figures(const struct input *in, char *buf, size_t room)
{
	struct drain_counts c;

	drain_counts(((const struct in_shm *)in)->drain, &c);
	snprintf(buf, room, " rings=%zu attached=%llu lanes=%llu ended=%llu refused=%llu over_share=%llu no_fds=%llu "
		 "broken=%llu ring_drops=%llu abandoned=%llu corrupt=%llu",
		 c.rings, (unsigned long long)c.attached, (unsigned long long)c.lanes, (unsigned long long)c.ended,
		 (unsigned long long)c.refused, (unsigned long long)c.over_share, (unsigned long long)c.no_fds,
		 (unsigned long long)c.broken,
		 (unsigned long long)c.ring_drops, (unsigned long long)c.abandoned,
		 (unsigned long long)c.corrupt);
}

static const char *shm_error(const struct input *in)
{
	return strerror(((const struct in_shm *)in)->last_error);
}

static void shm_close(struct input *in)
{
	drain_close(((struct in_shm *)in)->drain);
	free(in);
}

static const struct input_ops shm_ops = {
	.kind = "shm",
	.read = shm_read,
	.refresh = shm_refresh,
	.stats = shm_stats,
	.describe = shm_describe,
	.figures = shm_figures,
	.error = shm_error,
	.close = shm_close,
};

/*! Listen for rings on the Unix socket \a path.  Opened as root, before the
 *  privilege drop: the socket goes where root may create it (/run/gsmtaplog). */
struct input *in_shm_open(const char *path, const struct input_config *cfg, char *err)
{
	struct in_shm *s = calloc(1, sizeof(*s));
	const struct drain_config dc = { .path = path,
					 .hooks = { .attach = attach_cb, .detach = detach_cb, .say = say_cb, .ctx = s } };

	if (!s) {
		snprintf(err, INPUT_ERR_MAX, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->say = cfg->say;
	s->drain = drain_open(&dc, err);
	if (!s->drain) {
		int e = errno;

		free(s);
		errno = e;
		return NULL;
	}
	s->in = (struct input){ .ops = &shm_ops, .fd = drain_fd(s->drain), .live = true };
	snprintf(s->in.name, sizeof(s->in.name), "%s", path);
	return &s->in;
}
