/* drain.h: the drainer's side of deferred mode: take rings from local programs, follow their lives, read their lines; shared by gsmtap-logd --shm and gsmtap-log-agent. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shmring.h"

/* Defaults of struct drain_config. */
#define DRAIN_RINGS_MAX		256
#define DRAIN_ABANDON_NS	1000000000ull	/* a slot unpublished for 1 s is skipped */
#define DRAIN_HELLO_NS		2000000000ull	/* a connection that has not said hello in 2 s is dropped */
#define DRAIN_ERR_MAX		512
/* Descriptors kept for the drainer's own use (its files, sockets, a spare),
 * never given to rings. */
#define DRAIN_FDS_OWN		64

/*
 * A drain listens on a Unix socket (SOCK_SEQPACKET) for producers offering
 * their rings (shmring.h: the rendezvous), checks each ring before mapping
 * it, and follows it until no process holds it any more (the holders pipe; a
 * ring of an older library: its producer has died or closed it, and no
 * process holds its connection), when it is read to its last published line.
 * Lines are read by polling: the producers make no system call, so nothing
 * wakes the drainer but a timer.
 *
 * Any local user may offer rings.  Each uid gets a share of the rings and
 * descriptors, and room is kept for root and the drainer's own user
 * (shares.h); a lane's number is the drainer's to give (numbers.h); who
 * offered a ring is what SO_PEERCRED says, the ring's own word is shown
 * beside it (drain_describe()).  Refusals are counted, and said.
 *
 * A ring may come from another network namespace (a container reaches the
 * socket by its path): the drainer that sends its lines on asks for
 * DRAIN_NETNS_ENTER and makes their sockets with drain_socket(), so that they
 * leave from the namespace the ring came from (netns.h).
 *
 * Everything is driven from one descriptor, drain_fd(), an epoll set the
 * caller waits on with its own; nothing here blocks.
 */

struct drain;

/*! a + b, or UINT64_MAX where that would wrap: a hostile ring's counts may be anything. */
static inline uint64_t drain_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*! One lane of an attached ring, as the drainer's user sees it: a stream of
 *  its own (a producer has a lane per logging thread, shmring.h). */
struct drain_ring {
	struct shmring_reader rd;	/*!< ident, cursor and the mapped lane */
	uint16_t port;			/*!< the lane's number: its lines' source port */
	pid_t pid;			/*!< the process that offered the ring, from SO_PEERCRED */
	uid_t uid;			/*!< its user, from SO_PEERCRED */
	pid_t made_by;			/*!< the ring's own word of the process that made it */
	bool other_netns;		/*!< offered from another network namespace than the drainer's ... */
	ino_t netns_ino;		/*!< ... this one (as /proc/PID/ns/net names it), 0 if it cannot be entered */
	uint64_t lines;			/*!< lines read from it */
	uint64_t ring_drops;		/*!< lines its producer dropped (ring full), since some drainer last counted */
	struct shmring_cursor line_start;	/*!< during drain_line_cb: the cursor before the line */
	void *user;			/*!< the user's per-ring state (the agent's socket) */
};

/*! What a drain has done, summed over every ring it ever held. */
struct drain_counts {
	uint64_t attached;	/*!< rings taken */
	uint64_t refused;	/*!< offers and lanes refused: bad ring, too many, not allowed */
	uint64_t over_share;	/*!< of these: a uid's share, or the other users' part, was used up */
	uint64_t no_fds;	/*!< of these: the drainer was out of descriptors */
	uint64_t other_netns;	/*!< of these: from a network namespace the drainer cannot enter (DRAIN_NETNS_ENTER) */
	uint64_t ended;		/*!< rings read to their end after their producer went */
	uint64_t broken;	/*!< lanes given up because they broke the layout */
	uint64_t lines;		/*!< lines read */
	uint64_t ring_drops;	/*!< lines producers dropped because their ring was full */
	uint64_t abandoned;	/*!< slots skipped unpublished (a producer killed mid-line, or too slow) */
	uint64_t corrupt;	/*!< records that broke the layout, skipped */
	uint64_t lanes;		/*!< lanes that came into use (each a stream of its own) */
	size_t rings;		/*!< rings held now */
};

/*! What the user does when a ring comes and goes, and how the drain speaks
 *  (any may be NULL). */
struct drain_hooks {
	/*! A lane came into use: set up r->user for its number r->port.
	 *  \returns 0, or -errno to refuse the lane: -EADDRINUSE asks for
	 *  another number, -EMFILE or -ENFILE to be asked again later */
	int (*attach)(void *ctx, struct drain_ring *r);
	/*! The lane is let go (ended, broken, or the drain closes). */
	void (*detach)(void *ctx, struct drain_ring *r);
	/*! One line for the operator: a refusal, descriptors running out. */
	void (*say)(void *ctx, const char *line);
	void *ctx;
};

/*! Rings offered from another network namespace than the drainer's. */
enum drain_netns {
	DRAIN_NETNS_ANY = 0,		/*!< taken alike: their lines stay with the drainer (gsmtap-logd) */
	DRAIN_NETNS_ENTER,		/*!< taken only if the drainer can enter that namespace, for drain_socket() */
	DRAIN_NETNS_ENTER_OR_OWN,	/*!< entered if it can be, else taken anyway: drain_socket() makes
					 *   the socket in the drainer's own (the operator's choice) */
};

struct drain_config {
	const char *path;		/*!< the socket to listen on */
	unsigned int max_rings;		/*!< 0: DRAIN_RINGS_MAX */
	uint64_t abandon_ns;		/*!< 0: DRAIN_ABANDON_NS */
	uint64_t hello_ns;		/*!< 0: DRAIN_HELLO_NS */
	unsigned int lane_fds;		/*!< descriptors the user spends on a lane (the agent: its socket) */
	uint16_t first_port, last_port;	/*!< the lane numbers to give; 0: 1 to 65535 */
	enum drain_netns netns;		/*!< rings from another network namespace */
	struct drain_hooks hooks;
};

/*! Listen on cfg->path (rendezvous.h: in a directory no user but root and
 *  this one can change; an old socket file there is replaced; its directory
 *  is created 0755 if missing; the socket is 0666: any local user may offer a
 *  ring, as any may write to /dev/log).  \returns NULL with the reason in
 *  \a err (DRAIN_ERR_MAX bytes) and errno set */
struct drain *drain_open(const struct drain_config *cfg, char *err);

/*! An epoll descriptor: readable when drain_events() has something to do. */
int drain_fd(const struct drain *d);

/*! Take new producers, notice deaths and hang-ups, consume the timer.  Never blocks. */
void drain_events(struct drain *d);

/*! Take one line: \returns false when it cannot be taken now (the ring's
 *  cursor then stays before it and the drain goes on with the next ring). */
typedef bool (*drain_line_cb)(void *ctx, struct drain_ring *r, const struct shmring_line *line);

/*! Read up to \a max lines from the rings, round robin.  Rings whose
 *  producer has gone are read to their end, and let go at the next
 *  drain_release().  \returns lines taken */
size_t drain_read(struct drain *d, size_t max, drain_line_cb cb, void *ctx);

/*! Give every ring's read lines back to its producer: after the user has
 *  written them out (the collector), or sent them (the agent).  Rings read to
 *  their end are let go here. */
void drain_release(struct drain *d);

/*! A ring's cursor, to read its lines again after a send that could not take
 *  them all (drain_rewind()). */
struct shmring_cursor drain_cursor(const struct drain_ring *r);
void drain_rewind(struct drain_ring *r, const struct shmring_cursor *c);

void drain_counts(const struct drain *d, struct drain_counts *out);

/*! Who a lane's ring is from, for the operator: "IDENT (pid P, uid U)", and
 *  "; the ring says pid Q made it" when its own word is another pid (a forked
 *  child offering its parent's ring, or a lie).  \returns what snprintf() does */
int drain_describe(const struct drain_ring *r, char *buf, size_t room);

/*! socket(family, type, 0) for a lane's lines, made in the network namespace
 *  its ring was offered from (the drainer's own for a ring from there, and
 *  for one it could not enter under DRAIN_NETNS_ENTER_OR_OWN), as the
 *  ring's user (uid and gid from SO_PEERCRED), by a thread of its own that
 *  ends there (netns_socket()): the calling thread never leaves.
 *  \returns the socket, or -errno */
int drain_socket(const struct drain *d, const struct drain_ring *r, int family, int type);

/*! Call \a cb with each ring held. */
void drain_foreach(const struct drain *d, void (*cb)(const struct drain_ring *r, void *arg), void *arg);

/*! The socket's path, as given. */
const char *drain_path(const struct drain *d);

/*! Let every ring go, with what was read released (producers keep the rest
 *  for the next drainer), and remove the socket file.  NULL is allowed. */
void drain_close(struct drain *d);
