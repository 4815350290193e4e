/* rendezvous.h: the drainer's listening socket: made with its mode from the start, in a directory no other user can change, reached through no link another user could have made. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#define RENDEZVOUS_ERR_MAX	512

/*! A listening socket and the directory it is in. */
struct rendezvous {
	int fd;				/*!< the listening socket, or -1 */
	int dir_fd;			/*!< its directory (O_PATH), or -1 */
	char path[108];			/*!< as given (sun_path) */
	char name[108];			/*!< its last component */
	bool bound;			/*!< the file at dir_fd/name is ours to remove ... */
	dev_t dev;			/*!< ... while it is this one */
	ino_t ino;
};

/*! Listen (SOCK_SEQPACKET, non-blocking, close-on-exec) on \a path, created
 *  0666.  Every directory on the way and every link followed must belong to
 *  root or to this process's user and be writable by no one else (a sticky
 *  directory of root's on the way, as /tmp, is let pass; the socket's own
 *  directory never).  The socket's directory is created 0755 if missing (one
 *  level, as /run/gsmtaplog).  A stale socket file is replaced; one that a
 *  live drainer answers on is not.  Sets the umask for a moment: call it
 *  before other threads start.
 *  \returns 0, or -errno with the reason in \a err (RENDEZVOUS_ERR_MAX bytes);
 *           rendezvous_close() frees what was taken either way */
int rendezvous_listen(struct rendezvous *rv, const char *path, int backlog, char *err);

/*! Close the socket, and remove its file if it is still the one made here.
 *  Harmless on a struct that rendezvous_listen() failed on. */
void rendezvous_close(struct rendezvous *rv);
