/* shmring.c: the deferred mode's shared-memory ring: the producer's reservation and the drainer's bounds-checked reader (layout in shmring.h). */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shmring.h"
#include "tscclock.h"

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

static size_t page_round(size_t n)
{
	return (n + SHMRING_PAGE - 1) & ~(size_t)(SHMRING_PAGE - 1);
}

uint32_t shmring_slots(uint32_t data_bytes)
{
	return data_bytes / SHMRING_BYTES_PER_SLOT;
}

static size_t slots_len(uint32_t slots)
{
	return page_round((size_t)slots * sizeof(struct shmring_slot));
}

size_t shmring_total_len(uint32_t data_bytes)
{
	return SHMRING_PAGE + slots_len(shmring_slots(data_bytes)) + data_bytes;
}

static bool data_size_ok(uint64_t data_bytes)
{
	return power_of_two(data_bytes) && data_bytes >= SHMRING_DATA_MIN && data_bytes <= SHMRING_DATA_MAX;
}

/* ---- the producer ---- */

int shmring_init(struct shmring_producer *p, void *mem, uint32_t data_bytes, const char *ident,
		 size_t ident_len, uint32_t pid, uint32_t clock, uint32_t layout)
{
	struct shmring_header *h = mem;
	uint32_t slots = shmring_slots(data_bytes);

	if (!data_size_ok(data_bytes))
		return -EINVAL;
	h->magic = SHMRING_MAGIC;
	h->version = SHMRING_VERSION;
	h->header_len = SHMRING_PAGE;
	h->slots = slots;
	h->data_units = data_bytes / SHMRING_UNIT;
	h->total_len = shmring_total_len(data_bytes);
	h->pid = pid;
	h->clock = clock;
	h->layout = layout;
	memcpy(h->ident, ident, ident_len < WIRE_IDENT_LEN ? ident_len : WIRE_IDENT_LEN - 1);
	*p = (struct shmring_producer){
		.hdr = h,
		.slots = (struct shmring_slot *)((uint8_t *)mem + SHMRING_PAGE),
		.data = (uint8_t *)mem + SHMRING_PAGE + slots_len(slots),
		.slot_mask = slots - 1,
		.geo = shmring_geometry(layout, slots),
		.data_units = h->data_units,
	};
	return 0;
}

/* ---- the destination ---- */

int shmring_dest_from(struct shmring_dest *d, const struct sockaddr *sa, unsigned int len)
{
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;

	*d = (struct shmring_dest){ SHMRING_DEST_NONE };
	if (sa->sa_family == AF_INET && len >= sizeof(*v4)) {
		*d = (struct shmring_dest){ .kind = SHMRING_DEST_IPV4, .port = ntohs(v4->sin_port) };
		memcpy(d->addr, &v4->sin_addr, sizeof(v4->sin_addr));
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(*v6)) {
		*d = (struct shmring_dest){ .kind = SHMRING_DEST_IPV6, .port = ntohs(v6->sin6_port),
					    .scope_id = v6->sin6_scope_id };
		memcpy(d->addr, &v6->sin6_addr, sizeof(v6->sin6_addr));
	} else {
		return -EAFNOSUPPORT;
	}
	return 0;
}

unsigned int shmring_dest_to(const struct shmring_dest *d, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	switch (d->kind) {
	case SHMRING_DEST_IPV4:
		v4->sin_family = AF_INET;
		v4->sin_port = htons(d->port);
		memcpy(&v4->sin_addr, d->addr, sizeof(v4->sin_addr));
		return sizeof(*v4);
	case SHMRING_DEST_IPV6:
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(d->port);
		v6->sin6_scope_id = d->scope_id;
		memcpy(&v6->sin6_addr, d->addr, sizeof(v6->sin6_addr));
		return sizeof(*v6);
	}
	return 0;
}

/* A ring's destination as read: a known kind with a port, or none at all. */
static bool dest_valid(const struct shmring_dest *d)
{
	if (d->kind == SHMRING_DEST_IPV4 || d->kind == SHMRING_DEST_IPV6)
		return d->port != 0;
	return d->kind == SHMRING_DEST_NONE;
}

/* ---- the rendezvous ---- */

int shmring_offer_send(const struct sockaddr_un *addr, unsigned int addr_len, int memfd, int holders,
		       uint64_t total_len, unsigned int lanes)
{
	const int fds[2] = { memfd, holders }, nfds = holders >= 0 ? 2 : 1;
	const struct shmring_hello hello = { .magic = SHMRING_MAGIC,
					     .version = holders >= 0 ? SHMRING_HELLO_VERSION : SHMRING_VERSION,
					     .lanes = (uint16_t)lanes, .total_len = total_len };
	union {
		char buf[CMSG_SPACE(sizeof(fds))];
		struct cmsghdr align;
	} control = { 0 };
	struct iovec iov = { (void *)&hello, sizeof(hello) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.buf, .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int fd, rc;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	/* Non-blocking: a drainer too busy to accept (its backlog full) is a
	 * refusal now, not a wait in gsmtaplog_open_opts(). */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A drainer that refuses at once (a full share) answers and closes before
	 * it reads the hello: the hello then finds no one (EPIPE), or the answer
	 * comes after the reset that closing over an unread hello reports.  The
	 * answer is what counts. */
	if (connect(fd, (const struct sockaddr *)addr, addr_len) ||
	    (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 && errno != EPIPE)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int shmring_offer_answer(int fd, int answer_ms, int stop_fd)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
	int32_t answer;
	int rc = poll(pfd, stop_fd >= 0 ? 2 : 1, answer_ms);

	if (rc <= 0 || !pfd[0].revents) {
		errno = rc < 0 ? errno : rc ? ECANCELED : ETIMEDOUT;
		goto fail;
	}
	rc = (int)recv(fd, &answer, sizeof(answer), 0);
	if (rc < 0 && errno == ECONNRESET)
		rc = (int)recv(fd, &answer, sizeof(answer), MSG_DONTWAIT);
	if (rc != sizeof(answer)) {
		errno = rc < 0 ? errno : ECONNRESET;
		goto fail;
	}
	if (answer) {
		errno = answer > 0 ? answer : EPROTO;
		goto fail;
	}
	return fd;
fail:
	rc = -errno;
	/* Hung up, not only closed: a child forked meanwhile holds a copy of
	 * the connection, and a drainer that took the ring late would go on
	 * seeing it held, and refuse the offers that come after. */
	shutdown(fd, SHUT_RDWR);
	close(fd);
	return rc;
}

int shmring_offer(const struct sockaddr_un *addr, unsigned int addr_len, int memfd, int holders,
		  uint64_t total_len, unsigned int lanes, int answer_ms, int stop_fd)
{
	int fd = shmring_offer_send(addr, addr_len, memfd, holders, total_len, lanes);

	return fd < 0 ? fd : shmring_offer_answer(fd, answer_ms, stop_fd);
}

/* ---- the drainer ---- */

const char *shmring_refusal_name(enum shmring_refusal why)
{
	switch (why) {
	case SHMRING_OK:		return "ok";
	case SHMRING_BAD_SIZE:		return "its size is not the header's";
	case SHMRING_BAD_MAGIC:		return "not a gsmtaplog ring";
	case SHMRING_BAD_VERSION:	return "a ring version this drainer does not read";
	case SHMRING_BAD_GEOMETRY:	return "slots or data out of range";
	case SHMRING_BAD_TAIL:		return "its consumer position is impossible";
	case SHMRING_BAD_CLOCK:		return "its clock is unknown here";
	case SHMRING_BAD_LAYOUT:	return "its layout is unknown here";
	case SHMRING_BAD_DEST:		return "its destination is no address";
	}
	return "unknown";
}

static uint32_t head_idx(const struct shmring_reader *r, uint32_t *pos)
{
	uint64_t ip = __atomic_load_n(&r->hdr->head[1], __ATOMIC_ACQUIRE);

	*pos = (uint32_t)(ip >> 32);
	return (uint32_t)ip;
}

enum shmring_refusal shmring_attach(struct shmring_reader *r, void *mem, size_t len)
{
	struct shmring_header *h = mem;
	uint32_t slots, units, layout, hpos, hidx, version;
	uint64_t tail;

	memset(r, 0, sizeof(*r));
	if (len < SHMRING_PAGE)
		return SHMRING_BAD_SIZE;
	if (h->magic != SHMRING_MAGIC)
		return SHMRING_BAD_MAGIC;
	version = h->version;
	if (!shmring_version_ok(version) || h->header_len != SHMRING_PAGE)
		return SHMRING_BAD_VERSION;
	/* Each is read once into a local: the producer may change the page meanwhile. */
	slots = h->slots;
	units = h->data_units;
	if (!data_size_ok((uint64_t)units * SHMRING_UNIT) || slots != shmring_slots(units * SHMRING_UNIT))
		return SHMRING_BAD_GEOMETRY;
	if (len != shmring_total_len(units * SHMRING_UNIT))
		return SHMRING_BAD_SIZE;
	r->clock = h->clock;
	r->anchor_tsc = h->anchor_tsc;
	r->anchor_ns = h->anchor_ns;
	if (r->clock != SHMRING_CLOCK_REALTIME && !(r->clock == SHMRING_CLOCK_TSC && TSCCLOCK_READABLE))
		return SHMRING_BAD_CLOCK;
	r->hdr = r->hdr_rw = h;
	r->slots = (const struct shmring_slot *)((const uint8_t *)mem + SHMRING_PAGE);
	r->data = (const uint8_t *)mem + SHMRING_PAGE + slots_len(slots);
	r->slots_n = slots;
	layout = h->layout;
	if (layout & ~SHMRING_PACKED)
		return SHMRING_BAD_LAYOUT;
	r->geo = shmring_geometry(layout, slots);
	r->data_units = units;
	memcpy(r->ident, h->ident, WIRE_IDENT_LEN - 1);
	r->ident_len = strnlen(r->ident, WIRE_IDENT_LEN - 1);
	if (version >= 3)
		memcpy(&r->dest, &h->dest, sizeof(r->dest));
	if (!dest_valid(&r->dest))
		return SHMRING_BAD_DEST;

	tail = atomic_load_explicit(&h->tail, memory_order_acquire);
	hidx = head_idx(r, &hpos);
	r->cur = (struct shmring_cursor){ .idx = (uint32_t)tail, .pos = (uint32_t)(tail >> 32), .pos_known = true };
	r->head_seen = hidx;
	if (hidx - r->cur.idx > slots || hpos - r->cur.pos > units)
		return SHMRING_BAD_TAIL;
	return SHMRING_OK;
}

/* Where the record of a published slot must be, given the cursor: right
 * after the last one, or at the start of the data past the rest of the lap,
 * which a producer leaves unused when a record would not fit there (since
 * version 3 one that formats a line in place decides that for the longest
 * line it might be).  After a skipped slot any place up to the head will do. */
static bool record_placed(const struct shmring_reader *r, uint32_t pos, uint32_t units)
{
	const struct shmring_cursor *c = &r->cur;
	uint32_t off = pos & (r->data_units - 1), coff = c->pos & (r->data_units - 1), hpos;

	if (off + units > r->data_units)
		return false;
	if (c->pos_known)
		return pos == c->pos || (off == 0 && coff != 0 && pos == c->pos + (r->data_units - coff));
	head_idx(r, &hpos);
	return hpos - c->pos <= r->data_units && pos - c->pos <= hpos - c->pos &&
	       hpos - (pos + units) <= hpos - c->pos;
}

/* Copy the record's header and names out of the ring and check that they
 * fill exactly the length its slot gave. */
static bool record_valid(const struct shmring_reader *r, uint32_t pos, uint32_t len,
			 struct shmring_line *line)
{
	const uint8_t *rec = r->data + (size_t)(pos & (r->data_units - 1)) * SHMRING_UNIT;
	const struct shmring_rec *h = &line->rec;

	memcpy(&line->rec, rec, SHMRING_REC_LEN);
	if (h->subsys_len > SHMRING_NAME_SUBSYS || h->file_len > SHMRING_NAME_FILE ||
	    h->text_len > WIRE_TEXT_MAX ||
	    SHMRING_REC_LEN + (uint32_t)h->subsys_len + h->file_len + h->text_len != len)
		return false;
	rec += SHMRING_REC_LEN;
	memcpy(line->subsys, rec, h->subsys_len);
	line->subsys[h->subsys_len] = '\0';
	rec += h->subsys_len;
	memcpy(line->file, rec, h->file_len);
	line->file[h->file_len] = '\0';
	line->text = rec + h->file_len;
	return true;
}

enum shmring_status shmring_read(struct shmring_reader *r, struct shmring_line *line, bool skip_pending)
{
	struct shmring_cursor *c = &r->cur;

	/* An honest producer cannot have more slots reserved than the ring holds;
	 * the bound keeps one that writes faster than it is read from keeping a
	 * drainer here. */
	for (uint32_t turns = 0; turns <= r->slots_n; turns++) {
		const struct shmring_slot *s = &r->slots[shmring_slot_at(c->idx, r->slots_n, &r->geo)];
		uint32_t pos, len, units, hpos;

		if (r->head_seen == c->idx) {
			r->head_seen = head_idx(r, &hpos);
			if (r->head_seen == c->idx) {
				/* Everything reserved is read: the data up to the head are
				 * free, including those of slots skipped on the way. */
				if (!c->pos_known) {
					if (hpos - c->pos > r->data_units)
						return SHMRING_BROKEN;
					c->pos = hpos;
					c->pos_known = true;
				}
				return SHMRING_EMPTY;
			}
		}
		if (r->head_seen - c->idx > r->slots_n)
			return SHMRING_BROKEN;
		if (atomic_load_explicit(&s->stamp, memory_order_acquire) != c->idx + 1) {
			if (!skip_pending)
				return SHMRING_PENDING;
			skip_pending = false;	/* the next one may only be late */
			c->abandoned++;
			c->idx++;
			c->pos_known = false;
			continue;
		}
		pos = s->pos;
		len = s->len;
		units = shmring_units(len, &r->geo);
		c->idx++;
		if (len < SHMRING_REC_LEN || len > SHMRING_RECORD_MAX || !record_placed(r, pos, units) ||
		    !record_valid(r, pos, len, line)) {
			c->corrupt++;
			c->pos_known = false;
			continue;
		}
		c->pos = pos + units;
		c->pos_known = true;
		return SHMRING_LINE;
	}
	return SHMRING_BROKEN;
}

void shmring_release(struct shmring_reader *r)
{
	/* After a skipped slot the data position stays at the last record known:
	 * the producer gets that space back once a later record says where it is. */
	atomic_store_explicit(&r->hdr_rw->tail, shmring_pack(r->cur.idx, r->cur.pos), memory_order_release);
}

/* A producer numbers a line (head[0]) and reserves its slot (head[1]) or,
 * with no room, counts it in `dropped`, in that order: at any moment
 * dropped <= lines - slots reserved.  Read in the opposite order, the bound
 * holds for what was read, whatever threads the lane has; the slot index is
 * the low 32 bits of the slots reserved, which only widens the bound. */
uint64_t shmring_new_drops(const struct shmring_reader *r, uint64_t *counted)
{
	uint64_t dropped = atomic_load_explicit(&r->hdr->dropped, memory_order_acquire);
	uint32_t pos, idx = head_idx(r, &pos);
	uint64_t lines = __atomic_load_n(&r->hdr->head[0], __ATOMIC_ACQUIRE);
	uint64_t can = lines >= idx ? lines - idx : 0;
	uint64_t now = dropped < can ? dropped : can;
	uint64_t more = now > *counted ? now - *counted : 0;

	*counted += more;
	return more;
}

void shmring_line_to_wire(const struct shmring_reader *r, const struct shmring_line *line,
			  struct wire_log *log)
{
	*log = (struct wire_log){
		.seq = line->rec.seq,
		.sec = line->rec.sec,
		.usec = line->rec.usec,
		.pid = line->rec.pid,
		.line = line->rec.line,
		.level = line->rec.level,
		.ident = { r->ident, r->ident_len },
		.subsys = { line->subsys, line->rec.subsys_len },
		.file = { line->file, line->rec.file_len },
		.text = { (const char *)line->text, line->rec.text_len },
	};
}
