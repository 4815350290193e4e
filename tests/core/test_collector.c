/* test_collector.c: the collector (receiver/core/collector.c) between fake inputs and fake outputs: access, rate, counts, order, bounds, names. */
/* SPDX-License-Identifier: GPL-2.0-or-later */

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "collector.h"
#include "input.h"
#include "output.h"
#include "tap.h"

#define T0	1795991302
#define DATAGRAMS_MAX	64
#define EVENTS_MAX	256

/* What happened, in order, across every fake: "in0 close", "out1 add 3", ... */
static char events[EVENTS_MAX][32];
static size_t n_events;

static void event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void event(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (n_events < EVENTS_MAX)
		vsnprintf(events[n_events++], sizeof(events[0]), fmt, ap);
	va_end(ap);
}

/* ---- a fake input: delivers the records it was given, reports the counts it was given ---- */

struct fake_in {
	struct input in;
	int id;
	struct rx_record recs[DATAGRAMS_MAX];
	uint8_t data[DATAGRAMS_MAX][256];
	size_t n, next;
	struct input_stats st;
	int refreshed;
};

static int fake_read(struct input *in, rx_deliver_cb cb, void *ctx)
{
	struct fake_in *f = (struct fake_in *)in;
	int n = 0;

	for (; f->next < f->n; f->next++, n++)
		cb(ctx, &f->recs[f->next]);
	f->st.delivered += n;
	return n ? n : INPUT_END;
}

static void fake_refresh(struct input *in)
{
	((struct fake_in *)in)->refreshed++;
}

static void fake_in_stats(const struct input *in, struct input_stats *out)
{
	*out = ((const struct fake_in *)in)->st;
}

static void fake_in_close(struct input *in)
{
	event("in%d close", ((struct fake_in *)in)->id);
}

static const struct input_ops fake_in_ops = {
	.kind = "fake", .read = fake_read, .refresh = fake_refresh, .stats = fake_in_stats,
	.close = fake_in_close,
};
/* an input that keeps no kernel counters */
static const struct input_ops fake_in_ops_no_refresh = {
	.kind = "fake", .read = fake_read, .stats = fake_in_stats, .close = fake_in_close,
};

/* Queue a log datagram from \a src:\a port with sequence \a seq and text \a text
 * (or \a len raw bytes of junk when text is NULL). */
static void queue(struct fake_in *f, const char *src, uint16_t port, uint32_t seq, const char *text, size_t len)
{
	struct rx_record *r = &f->recs[f->n];
	uint8_t *d = f->data[f->n];
	struct sockaddr_in *sin = (struct sockaddr_in *)&r->src;

	memset(r, 0, sizeof(*r));
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, src, &sin->sin_addr);
	sin->sin_port = htons(port);
	r->dst = r->src;
	r->rx_time = (struct timespec){ T0, 0 };
	if (text) {
		wire_encode_prefix(d, &(struct wire_log){ .seq = seq, .pid = 1, .level = WIRE_LEVEL_INFO,
							 .ident = { "fake", 4 } });
		memcpy(d + WIRE_PREFIX_LEN, text, strlen(text));
		len = WIRE_PREFIX_LEN + strlen(text);
	} else {
		memset(d, 0xee, len);
	}
	r->data = d;
	r->len = len;
	f->n++;
}

/* A fresh fake input \a id, handed to \a c.  \returns collector_add_input()'s result */
static int fake_in_add(struct collector *c, struct fake_in *f, int id, const struct input_ops *ops)
{
	memset(f, 0, sizeof(*f));
	f->in = (struct input){ .ops = ops, .fd = -1 };
	snprintf(f->in.name, sizeof(f->in.name), "in%d", id);
	f->id = id;
	return collector_add_input(c, &f->in);
}

/* ---- a fake output: records what it gets, reports the counts it was given ---- */

struct fake_out {
	struct output out;
	int id;
	size_t adds;
	enum wire_verdict verdicts[DATAGRAMS_MAX];
	char texts[DATAGRAMS_MAX][32];
	int flushes, finishes, reopen_rc;
	time_t now;
	struct output_stats st;
};

static void fake_add(struct output *o, const struct rx_record *r, enum wire_verdict v,
		     const struct wire_log *log, time_t now)
{
	struct fake_out *f = (struct fake_out *)o;

	(void)r;
	if (f->adds < DATAGRAMS_MAX) {
		f->verdicts[f->adds] = v;
		snprintf(f->texts[f->adds], sizeof(f->texts[0]), "%.*s", v == WIRE_OK ? (int)log->text.len : 0,
			 v == WIRE_OK ? log->text.ptr : "");
	}
	event("out%d add %s", f->id, f->texts[f->adds]);
	f->adds++;
	f->now = now;
}

static void fake_flush(struct output *o, const struct timespec *now)
{
	struct fake_out *f = (struct fake_out *)o;

	f->flushes++;
	f->now = now->tv_sec;
}

static void fake_finish(struct output *o, time_t now)
{
	(void)now;
	((struct fake_out *)o)->finishes++;
}

static int fake_reopen(struct output *o, time_t now)
{
	struct fake_out *f = (struct fake_out *)o;

	(void)now;
	event("out%d reopen", f->id);
	return f->reopen_rc;
}

static void fake_out_stats(const struct output *o, struct output_stats *out)
{
	*out = ((const struct fake_out *)o)->st;
}

static const char *fake_file(const struct output *o)
{
	(void)o;
	return "-";
}

static void fake_out_close(struct output *o, time_t now)
{
	(void)now;
	event("out%d close", ((struct fake_out *)o)->id);
}

static const struct output_ops fake_out_ops = {
	.add = fake_add, .flush = fake_flush, .finish = fake_finish, .reopen = fake_reopen,
	.stats = fake_out_stats, .file = fake_file, .close = fake_out_close,
};
/* an output with nothing to finish */
static const struct output_ops fake_out_ops_no_finish = {
	.add = fake_add, .flush = fake_flush, .reopen = fake_reopen,
	.stats = fake_out_stats, .file = fake_file, .close = fake_out_close,
};

/* A fresh fake output \a id, handed to \a c.  \returns collector_add_output()'s result */
static int fake_out_add(struct collector *c, struct fake_out *f, int id, const struct output_ops *ops)
{
	memset(f, 0, sizeof(*f));
	f->out = (struct output){ .ops = ops, .kind = "fake", .dirfd = -1 };
	f->id = id;
	return collector_add_output(c, &f->out);
}

static struct collector *new_collector(const struct access *a)
{
	struct collector *c = collector_new(16, a);

	if (!c)
		BAIL_OUT("collector_new: %s", strerror(errno));
	n_events = 0;
	return c;
}

static void read_all(struct collector *c)
{
	struct input *in;

	for (size_t i = 0; (in = collector_input(c, i)); i++)
		while (in->ops->read(in, collector_take_cb, c) != INPUT_END)
			;
}

static bool events_are(const char *const *want, size_t n)
{
	if (n_events != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(events[i], want[i]))
			return false;
	return true;
}

static void show_events(void)
{
	for (size_t i = 0; i < n_events; i++)
		printf("#   event %zu: %s\n", i, events[i]);
}

/* Every output gets every record, in the order the outputs were added; malformed
 * datagrams too (the pcapng keeps everything), with their verdict. */
static void order_and_verdicts(void)
{
	static const struct access everyone = { 0 };
	static struct fake_in in;
	static struct fake_out o0, o1;
	struct collector *c = new_collector(&everyone);
	static const char *const want[] = {
		"out0 add one", "out1 add one", "out0 add ", "out1 add ", "out0 add two", "out1 add two",
		"out0 close", "out1 close", "in0 close",
	};

	fake_in_add(c, &in, 0, &fake_in_ops);
	fake_out_add(c, &o0, 0, &fake_out_ops);
	fake_out_add(c, &o1, 1, &fake_out_ops);
	queue(&in, "10.0.0.1", 5000, 1, "one", 0);
	queue(&in, "10.0.0.1", 5000, 0, NULL, 7);
	queue(&in, "10.0.0.1", 5000, 2, "two", 0);
	read_all(c);
	ok(o0.adds == 3 && o1.adds == 3, "both outputs get all 3 records");
	ok(o0.verdicts[0] == WIRE_OK && o0.verdicts[1] == WIRE_SHORT && o0.verdicts[2] == WIRE_OK,
	   "with their verdicts: ok, short (7 bytes of junk), ok");
	struct collector_counts cc;

	collector_counts(c, &cc);
	ok(cc.received == 3 && cc.streams.malformed == 1 && cc.streams_held == 1,
	   "received=3, malformed=1, one stream");
	collector_free(c);
	if (!ok(events_are(want, sizeof(want) / sizeof(want[0])),
		"record by record, output 0 before output 1; at the end outputs close before inputs"))
		show_events();
}

static void access_and_rate(void)
{
	static struct access a;
	static struct fake_in in;
	static struct fake_out o;
	struct collector *c;
	struct collector_counts cc;

	memset(&a, 0, sizeof(a));
	access_add_net(&a, "10.0.0.0/8");
	a.rate = 2;
	c = new_collector(&a);
	fake_in_add(c, &in, 0, &fake_in_ops);
	fake_out_add(c, &o, 0, &fake_out_ops);
	for (uint32_t i = 1; i <= 3; i++)
		queue(&in, "192.0.2.1", 5000, i, "outside", 0);
	for (uint32_t i = 1; i <= 5; i++)
		queue(&in, "10.1.1.1", 5000, i, "inside", 0);
	read_all(c);
	collector_counts(c, &cc);
	is_int(cc.received, 8, "received=8");
	is_int(cc.denied, 3, "denied=3: the sender outside --allow");
	is_int(cc.rate_limited, 3, "rate_limited=3: 5 at one instant from one sender, --rate-limit 2");
	is_int(o.adds, 2, "the output gets the 2 within the rate");
	is_int(cc.streams_held, 1, "only the allowed sender has a stream");
	is_int(cc.streams.received, 5, "its stream counts all 5 (their sequence numbers arrived)");
	is_int(cc.streams.lost, 0, "so the rate-limited ones are not sequence losses");
	is_int(collector_dropped(&cc), 6, "dropped = denied + rate_limited = 6");
	collector_free(c);
}

static void stream_rate_cb(const struct stream *s, void *arg)
{
	*(uint64_t *)arg += s->rate_limited;
}

static void counts_from_inputs_and_outputs(void)
{
	static const struct access everyone = { 0 };
	static struct fake_in i0, i1;
	static struct fake_out o0, o1;
	struct collector *c = new_collector(&everyone);
	struct collector_counts cc;
	struct timespec before;
	uint64_t rate_limited = 0;

	fake_in_add(c, &i0, 0, &fake_in_ops);
	fake_in_add(c, &i1, 1, &fake_in_ops_no_refresh);
	fake_out_add(c, &o0, 0, &fake_out_ops);
	fake_out_add(c, &o1, 1, &fake_out_ops_no_finish);
	i0.st.kernel_drops = 5, i0.st.lost = 1;
	i1.st.kernel_drops = 7, i1.st.lost = 2;
	o0.st.written = 40, o0.st.lost = 4;
	o1.st.written = 30, o1.st.lost = 6;
	collector_counts(c, &cc);
	is_int(cc.kernel_drops, 12, "kernel_drops: the inputs' 5 + 7");
	is_int(cc.input_lost, 3, "input_lost: the inputs' 1 + 2");
	is_int(cc.unwritten, 10, "unwritten: the outputs' 4 + 6");
	is_int(cc.written, 40, "written: the main (first) output's, not a sum");
	is_int(collector_dropped(&cc), 25, "dropped = 12 + 3 + 10");
	collector_refresh(c);
	collector_refresh(c);
	is_int(i0.refreshed, 2, "refresh reaches each input that has one (and skips one without)");
	clock_gettime(CLOCK_REALTIME, &before);
	collector_flush(c);
	ok(o0.flushes == 1 && o1.flushes == 1 && o0.now >= before.tv_sec && o0.now <= before.tv_sec + 1,
	   "flush reaches every output with the wall clock");
	is_int(collector_now(c), o0.now, "collector_now is the flush's second");
	collector_finish(c);
	is_int(o0.finishes, 1, "finish reaches each output that has one (and skips one without)");
	o1.reopen_rc = -EIO;
	is_int(collector_reopen(c), -EIO, "reopen: every output reopens; the first error is returned");
	collector_foreach_stream(c, stream_rate_cb, &rate_limited);
	is_int(rate_limited, 0, "no stream, nothing rate-limited");
	collector_free(c);
}

static void bounds(void)
{
	static const struct access everyone = { 0 };
	static struct fake_in ins[COLLECTOR_INPUTS_MAX + 1];
	static struct fake_out outs[COLLECTOR_OUTPUTS_MAX + 1];
	struct collector *c = new_collector(&everyone);
	int rc = 0;

	for (int i = 0; i < COLLECTOR_INPUTS_MAX; i++) {
		rc |= fake_in_add(c, &ins[i], i, &fake_in_ops);
	}
	for (int i = 0; i < COLLECTOR_OUTPUTS_MAX; i++) {
		rc |= fake_out_add(c, &outs[i], i, &fake_out_ops);
	}
	is_int(rc, 0, "%d inputs and %d outputs are taken", COLLECTOR_INPUTS_MAX, COLLECTOR_OUTPUTS_MAX);
	is_int(fake_in_add(c, &ins[COLLECTOR_INPUTS_MAX], 99, &fake_in_ops), -ENOSPC, "one input more: -ENOSPC");
	is_int(fake_out_add(c, &outs[COLLECTOR_OUTPUTS_MAX], 99, &fake_out_ops), -ENOSPC, "one output more: -ENOSPC");
	ok(collector_input(c, COLLECTOR_INPUTS_MAX - 1) == &ins[COLLECTOR_INPUTS_MAX - 1].in &&
	   !collector_input(c, COLLECTOR_INPUTS_MAX), "collector_input: the last one, then NULL");
	ok(collector_output(c, COLLECTOR_OUTPUTS_MAX - 1) == &outs[COLLECTOR_OUTPUTS_MAX - 1].out &&
	   !collector_output(c, COLLECTOR_OUTPUTS_MAX), "collector_output: the last one, then NULL");
	collector_free(c);
	is_int(n_events, COLLECTOR_INPUTS_MAX + COLLECTOR_OUTPUTS_MAX,
	       "free closes every one it took, and not the ones it refused (the caller keeps those)");
	for (size_t i = 0; i < n_events; i++)
		if (strstr(events[i], "99"))
			ok(0, "a refused one was closed: %s", events[i]);
}

struct named {
	char list[256];
	int n;
};

static void named_cb(const struct sockaddr *addr, const char *name, void *arg)
{
	struct named *nm = arg;
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, a, sizeof(a));
	nm->n++;
	snprintf(nm->list + strlen(nm->list), sizeof(nm->list) - strlen(nm->list), "%s=%s ", a, name);
}

static void foreach_named(void)
{
	static const struct access everyone = { 0 };
	static struct fake_in in;
	static struct fake_out o;
	char hosts[] = "/tmp/test_collector_hosts.XXXXXX";
	int fd = mkstemp(hosts);
	const char text[] = "10.1.1.3 bts-three\n10.1.1.1 bts-one # the first\n192.0.2.9 never-seen\n";
	struct collector *c = new_collector(&everyone);
	struct named nm = { "", 0 };
	struct names *names;

	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		BAIL_OUT("cannot write a hosts file");
	close(fd);
	names = names_load(hosts);
	unlink(hosts);
	if (!names)
		BAIL_OUT("names_load: %s", strerror(errno));
	fake_in_add(c, &in, 0, &fake_in_ops);
	fake_out_add(c, &o, 0, &fake_out_ops);
	queue(&in, "10.1.1.1", 5000, 1, "a", 0);
	queue(&in, "10.1.1.2", 5000, 1, "b", 0);
	queue(&in, "10.1.1.3", 5000, 1, "c", 0);
	queue(&in, "10.1.1.1", 5001, 1, "d", 0);	/* another port of a named host */
	read_all(c);
	collector_foreach_named(c, 10, named_cb, &nm);
	is_int(nm.n, 0, "no names set: nothing is named");
	collector_set_names(c, names);
	collector_foreach_named(c, 10, named_cb, &nm);
	is_mem(nm.list, strlen(nm.list), "10.1.1.1=bts-one 10.1.1.3=bts-three 10.1.1.1=bts-one ",
	       "the held senders the hosts file names, in order of first appearance, once per stream");
	nm = (struct named){ "", 0 };
	collector_foreach_named(c, 1, named_cb, &nm);
	is_mem(nm.list, strlen(nm.list), "10.1.1.1=bts-one ", "at most max of them");
	nm = (struct named){ "", 0 };
	collector_foreach_named(c, 0, named_cb, &nm);
	is_int(nm.n, 0, "max 0: none");
	collector_free(c);
	names_free(names);
}

int main(void)
{
	order_and_verdicts();
	access_and_rate();
	counts_from_inputs_and_outputs();
	bounds();
	foreach_named();
	return done_testing();
}
