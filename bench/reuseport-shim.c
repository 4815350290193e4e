/* reuseport-shim.c: LD_PRELOAD experiment helper: sets SO_REUSEPORT on every UDP socket before bind(), to try SO_REUSEPORT workers without changing gsmtap-logd. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Built as build/bench/reuseport-shim.so.
 * Use:   LD_PRELOAD=build/bench/reuseport-shim.so gsmtap-logd -l 127.0.0.1:PORT ...  (twice)
 * Only for the scaling experiment in doc/performance.md ("Quick experiment"):
 * the kernel then spreads the senders over the processes by a hash of the
 * address 4-tuple.
 */
#include <dlfcn.h>
#include <sys/socket.h>

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*real_bind)(int, const struct sockaddr *, socklen_t);
	int type = 0, one = 1;
	socklen_t tlen = sizeof(type);

	if (!real_bind)
		real_bind = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && type == SOCK_DGRAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	return real_bind(fd, addr, len);
}
