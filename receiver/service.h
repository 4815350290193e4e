/* service.h: the service manager's side of the daemon: sockets passed at start, readiness, status and the watchdog (systemd's protocol, without libsystemd). */
/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Passed sockets are descriptors 3, 4, ... (sd_listen_fds(3)). */
#define SVC_FDS_START	3

/*! Take what the service manager put in the environment, and remove it, so
 *  that nothing the daemon starts inherits it: LISTEN_PID/LISTEN_FDS (sockets
 *  passed to this process, marked close-on-exec), NOTIFY_SOCKET, and
 *  WATCHDOG_USEC/WATCHDOG_PID.  Without a service manager, none is set and
 *  every other call does nothing.  \returns how many sockets were passed:
 *  descriptors SVC_FDS_START onwards */
int svc_init(void);

/*! Send \a fmt ("READY=1\nSTATUS=...") to the service manager's notify socket,
 *  if there is one.  Never blocks: a message the socket does not take at once
 *  is dropped.  \returns 0 (also without a manager) or -errno */
int svc_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*! In a process the daemon forks (a --workers worker): the service manager
 *  takes notifications from the main process only, so this one sends none. */
void svc_forget(void);

/*! \returns true when a service manager listens for notifications */
bool svc_notifying(void);

/*! RELOADING=1, with the MONOTONIC_USEC= that newer managers ask for; READY=1
 *  ends the reload. */
void svc_notify_reloading(void);

/*! Send WATCHDOG=1 when half the watchdog interval (WatchdogSec=) has passed
 *  since the last one; call it every loop turn. */
void svc_watchdog(void);
