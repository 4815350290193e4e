/* netns.h: the network namespace a producer's connection was made in, and sockets made there for its lines. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/*
 * A Unix socket's path reaches across network namespaces: a program in a
 * container (`unshare -n`, its own loopback, no route out) can offer its ring
 * to a drainer on the host.  Lines the agent sends on must leave from the
 * program's namespace, where it could have sent them itself, never from the
 * drainer's (the host's loopback, past the container's firewall).
 *
 * Which namespace is the kernel's word, not a pid's: the end of a Unix
 * connection that accept() returns lives in the namespace of the socket that
 * connected (af_unix makes it there), so SO_NETNS_COOKIE and SIOCGSKNS on the
 * connection name the producer's namespace, held by the connection itself.
 * A pid from SO_PEERCRED and /proc/PID/ns/net would race with the pid's reuse.
 */

/*! The namespace the socket \a fd lives in, as a number no two live
 *  namespaces share (SO_NETNS_COOKIE; no privilege needed).
 *  \returns 0, or -errno */
int netns_cookie(int fd, uint64_t *cookie);

/*! A descriptor of the namespace the socket \a fd lives in (SIOCGSKNS:
 *  CAP_NET_ADMIN over it), close-on-exec.  \returns it, or -errno */
int netns_of(int fd);

/*! Whether the drainer may enter \a ns (CAP_SYS_ADMIN over it and over
 *  its own): a thread of its own tries, and ends there.  \returns 0, or -errno */
int netns_can_enter(int ns);

/*! socket(family, type, 0) made in \a ns (-1: the drainer's own) as \a uid
 *  and \a gid, by a thread that enters, makes it and ends there: the caller
 *  never leaves its namespace, so it never has to come back.  Owner-match
 *  rules (nftables' meta skuid and skgid, iptables' -m owner) and uid
 *  routing rules then see that user, as for a socket the producer made,
 *  where the drainer may take its fsuid (CAP_SETUID over a user its user
 *  namespace maps); else its own.  Its cgroup is the drainer's.
 *  \returns the socket, or -errno */
int netns_socket(int ns, uid_t uid, gid_t gid, int family, int type);
