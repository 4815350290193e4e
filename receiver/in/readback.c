/* readback.c: what an earlier run recorded, read back from the main output's pcapng files, so that the collector knows the datagrams a broker may deliver again and where each sender's numbers stood. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame.h"
#include "pcapread.h"
#include "readback.h"

/* A file mapped whole: pcapread parses it in place, twice (count, then hand over). */
struct part {
	const uint8_t *map;
	size_t size;
	uint64_t packets;
};

struct readback {
	size_t want;
	uint64_t found;
	struct part parts[READBACK_FILES];	/*!< newest first */
	size_t n;
};

/* Walk a mapped file's packets and hand them to \a cb (NULL: only count).
 * \returns the packets in it */
static uint64_t walk(const struct part *p, rx_deliver_cb cb, void *ctx)
{
	struct pcapread rd = { 0 };
	size_t off = 0, used;
	uint64_t n = 0;

	for (;;) {
		struct pcapread_packet pkt;
		enum pcapread_result res = pcapread_next(&rd, p->map + off, p->size - off, &used, &pkt);
		struct frame_fragment frag;
		struct rx_record r;

		if (res != PCAPREAD_PACKET && res != PCAPREAD_OTHER) {
			pcapread_free(&rd);
			return n;
		}
		off += used;
		if (res != PCAPREAD_PACKET)
			continue;
		if (cb && frame_decode(pcapread_dlt(pkt.linktype), pkt.data, pkt.caplen, &r, &frag) == FRAME_UDP) {
			r.rx_time = (struct timespec){ pkt.ts_ns / 1000000000, pkt.ts_ns % 1000000000 };
			cb(ctx, &r);
		}
		n++;
	}
}

/* One file, newest first: map it and count its packets.  \returns whether to go on to an older one. */
static bool file_cb(int dirfd, const char *name, void *arg)
{
	struct readback *rb = arg;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct part *p = &rb->parts[rb->n];
	struct stat sb;

	if (fd < 0)
		return true;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size) {
		close(fd);
		return true;
	}
	p->size = sb.st_size;
	p->map = mmap(NULL, p->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p->map == MAP_FAILED)
		return true;
	p->packets = walk(p, NULL, NULL);
	if (!p->packets) {
		munmap((void *)p->map, p->size);
		return true;
	}
	rb->found += p->packets;
	rb->n++;
	return rb->found < rb->want && rb->n < READBACK_FILES;
}

size_t readback(const struct output *o, size_t want, rx_deliver_cb cb, void *ctx)
{
	struct readback rb = { .want = want };
	size_t handed = 0;

	if (!want || !o->ops->earlier)
		return 0;
	o->ops->earlier(o, file_cb, &rb);
	/* Every file read is handed over whole, not only its last \a want: a
	 * record left unacknowledged can lie further back than that many (a run
	 * that died before JetStream delivered it again, then a run that wrote
	 * thousands of acknowledged ones before it died too), and the files had
	 * to be walked to their ends anyway. */
	for (size_t i = rb.n; i-- > 0;) {
		walk(&rb.parts[i], cb, ctx);
		handed += rb.parts[i].packets;
		munmap((void *)rb.parts[i].map, rb.parts[i].size);
	}
	return handed;
}
