/* ack-loser.c: LD_PRELOAD fault for the archiver tests: while a named file exists, JetStream acknowledgements vanish on their way out, as when a collector dies between writing a batch and acknowledging it. */
/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Built as build/tests/tools/ack-loser.so.
 * Use:   ACK_LOSER_FILE=/tmp/x LD_PRELOAD=build/tests/tools/ack-loser.so gsmtap-logd --from-nats ...
 * gsmtap-logd acknowledges each message it wrote by publishing "+ACK" to the
 * message's reply subject (natsconn_ack()); while ACK_LOSER_FILE exists, that
 * publish is reported sent and never made.  JetStream then delivers those
 * messages again after the acknowledgement wait, already written: exactly the
 * repeats the collector must know and leave out.  Everything else goes through.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nats/nats.h>

natsStatus natsConnection_PublishString(natsConnection *nc, const char *subj, const char *str)
{
	static natsStatus (*real)(natsConnection *, const char *, const char *);
	const char *file = getenv("ACK_LOSER_FILE");

	if (!real)
		real = (natsStatus (*)(natsConnection *, const char *, const char *))dlsym(RTLD_NEXT,
											"natsConnection_PublishString");
	if (str && !strcmp(str, "+ACK") && file && !access(file, F_OK))
		return NATS_OK;
	return real(nc, subj, str);
}
