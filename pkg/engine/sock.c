// The TCP baseline's measured loops. Every per-message system call and
// timestamp happens here, so that a message costs what it costs in a C tool
// such as sockperf or qperf: no Go scheduler hand-off (entersyscall and
// exitsyscall) around each send and receive. Go calls in once per run or
// per batch of samples.
//
// Blocking mode issues plain blocking send/recv, without SO_SNDTIMEO or
// SO_RCVTIMEO: with those, every wait arms and cancels a kernel timer, a
// cost per message that a C tool such as sockperf does not pay. A watchdog
// thread (rb_sock_watch, in Go) bounds the wait instead: when a call has
// made no progress for the idle timeout, it marks it timed out and shuts
// the socket down. Busy mode spins on MSG_DONTWAIT calls and reads the
// clock only every SPIN_CHECK empty calls. Either way, a peer that stops
// answering ends a call with RB_IDLE. rb_sock_stop ends it with
// RB_STOPPED: at once when spinning, and, when blocked, once the caller's
// shutdown of the socket wakes the call.
#include <errno.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include "clock.h"
#include "sock.h"
#include <string.h>

#define SPIN_CHECK 1024

// Plain system calls, not libc's send and recv: in a multi-threaded
// process (every Go program) those are cancellation points that wrap each
// call in two atomic updates of the thread's cancellation state, which a
// single-threaded C tool such as sockperf skips. syscall(2) reads its
// arguments as longs: pass them as longs.
static ssize_t sys_send(int fd, const void *p, size_t len, int flags)
{
	return syscall(SYS_sendto, (long)fd, p, len, (long)flags, NULL, 0L);
}

static ssize_t sys_recv(int fd, void *p, size_t len, int flags)
{
	return syscall(SYS_recvfrom, (long)fd, p, len, (long)flags, NULL, NULL);
}

void rb_sock_stop(struct rb_sock *s)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
}

static int stopped(struct rb_sock *s)
{
	return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
}

void rb_sock_arm_window(struct rb_sock *s, uint64_t at)
{
	memset(&s->win, 0, sizeof(s->win));
	s->win.armed = 1;
	s->win.at = at;
	s->win_base = s->done;
}

uint64_t rb_sock_watch(struct rb_sock *s, int *in_call)
{
	*in_call = __atomic_load_n(&s->in_call, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->progress, __ATOMIC_ACQUIRE);
}

void rb_sock_time_out(struct rb_sock *s)
{
	__atomic_store_n(&s->timed_out, 1, __ATOMIC_RELEASE);
}

static int timed_out(struct rb_sock *s)
{
	return __atomic_load_n(&s->timed_out, __ATOMIC_ACQUIRE);
}

// moved notes progress for the watchdog. Only the loop's thread writes
// the count: a plain increment, published without a locked instruction.
static void moved(struct rb_sock *s)
{
	__atomic_store_n(&s->progress, s->progress + 1, __ATOMIC_RELEASE);
}

// enter and leave bracket every public call, for the watchdog.
static void enter(struct rb_sock *s)
{
	moved(s);
	__atomic_store_n(&s->in_call, 1, __ATOMIC_RELEASE);
}

static int leave(struct rb_sock *s, int status)
{
	__atomic_store_n(&s->in_call, 0, __ATOMIC_RELEASE);
	return status;
}

// fail records a failed or timed-out call. A call that failed because the
// caller stopped the loop (and shut the socket down) is no failure; one
// that failed because the watchdog shut the socket down timed out.
static int fail(struct rb_sock *s, int op, int status, int err)
{
	if (stopped(s))
		return RB_STOPPED;
	if (timed_out(s)) {
		status = RB_IDLE;
		err = 0;
	}
	s->err_op = op;
	s->err_errno = err;
	return status;
}

// retry decides what a failed call does next: 0 to call again, else the
// status to return.
static int retry(struct rb_sock *s, int op, int err, struct rb_wait *w)
{
	switch (err) {
	case EINTR:
		// A call interrupted by a signal is called again; the wait
		// it belongs to is bounded here, across the calls.
		return rb_waited_out(w, s->idle_timeout_ns) ? fail(s, op, RB_IDLE, 0) : 0;
	case EAGAIN:
		if (!s->busy) // a socket timeout, should the owner have set one
			return fail(s, op, RB_IDLE, 0);
		if (stopped(s))
			return RB_STOPPED;
		if (++w->spins % SPIN_CHECK == 0 && rb_waited_out(w, s->idle_timeout_ns))
			return fail(s, op, RB_IDLE, 0);
		return 0;
	}
	return fail(s, op, RB_SYS_ERROR, err);
}

// MSG_NOSIGNAL: a peer that is gone is an EPIPE to report, not a SIGPIPE.
static int send_all(struct rb_sock *s, const uint8_t *p, size_t len)
{
	int flags = MSG_NOSIGNAL | (s->busy ? MSG_DONTWAIT : 0);
	struct rb_wait w = { 0 };
	while (len > 0) {
		ssize_t r = sys_send(s->fd, p, len, flags);
		if (r >= 0) {
			p += r;
			len -= (size_t)r;
			w = (struct rb_wait){ 0 }; // progress: a new wait begins
			moved(s);
			continue;
		}
		int st = retry(s, RB_SOCK_SEND, errno, &w);
		if (st)
			return st;
	}
	return RB_OK;
}

static int recv_some(struct rb_sock *s, uint8_t *p, size_t len, size_t *got)
{
	int flags = s->busy ? MSG_DONTWAIT : 0;
	struct rb_wait w = { 0 };
	for (;;) {
		ssize_t r = sys_recv(s->fd, p, len, flags);
		if (r > 0) {
			*got = (size_t)r;
			moved(s);
			return RB_OK;
		}
		if (r == 0) { // the end of the stream, or a shutdown here
			s->partial = 0;
			if (stopped(s) || timed_out(s))
				return fail(s, RB_SOCK_RECV, RB_EOF, 0);
			return RB_EOF;
		}
		int st = retry(s, RB_SOCK_RECV, errno, &w);
		if (st)
			return st;
	}
}

// recv_full fills p; at the end of the stream, partial says how much of p
// had arrived.
static int recv_full(struct rb_sock *s, uint8_t *p, size_t len)
{
	for (size_t got = 0; got < len;) {
		size_t n = 0;
		int st = recv_some(s, p + got, len - got, &n);
		if (st == RB_EOF)
			s->partial = (uint32_t)got;
		if (st)
			return st;
		got += n;
	}
	return RB_OK;
}

static int ping(struct rb_sock *s, uint64_t n, int64_t deadline_ns, int record)
{
	uint64_t done = 0;
	int r;
	for (;;) {
		// One reading per iteration, as in the RDMA engine: the end of
		// the last iteration is the start of the next, so the loop's own
		// cost is in each sample once. The CPU window opens before the
		// first timed reading.
		rb_window_at(&s->win, s->done - s->win_base);
		int64_t t = rb_now_ns();
		if (record)
			s->ts[s->len] = t;
		if (done == n)
			return RB_OK;
		if (deadline_ns && t >= deadline_ns)
			return RB_DEADLINE;
		if (stopped(s))
			return RB_STOPPED;
		if ((record && s->len == s->cap) || (done && s->yield_ns && t >= s->yield_ns))
			return RB_FULL;
		rb_slowdown(0);
		if ((r = send_all(s, s->buf, s->size)) || (r = recv_full(s, s->reply, s->size)))
			return r;
		done++;
		s->done++;
		if (record)
			s->len++;
	}
}

static int pong(struct rb_sock *s, uint64_t n)
{
	int r;
	for (uint64_t done = 0; done < n; done++) {
		if (stopped(s))
			return RB_STOPPED;
		if ((r = recv_full(s, s->buf, s->size)))
			return r;
		rb_slowdown(0);
		if ((r = send_all(s, s->buf, s->size)))
			return r;
		s->done++;
	}
	return RB_OK;
}

static int send_stream(struct rb_sock *s, uint64_t n, int64_t deadline_ns)
{
	int r;
	for (uint64_t done = 0;;) {
		if (done == n)
			return RB_OK;
		if (stopped(s))
			return RB_STOPPED;
		rb_window_at(&s->win, s->done - s->win_base);
		rb_slowdown(1);
		if ((r = send_all(s, s->buf, s->size)))
			return r;
		done++;
		s->done++;
		// The clock only for a deadline or a tick: a counted run
		// without live figures needs none.
		if (deadline_ns || s->yield_ns) {
			int64_t t = rb_now_ns();
			if (deadline_ns && t >= deadline_ns)
				return done == n ? RB_OK : RB_DEADLINE;
			if (s->yield_ns && t >= s->yield_ns && done < n)
				return RB_FULL;
		}
	}
}

static int recv_stream(struct rb_sock *s, uint64_t limit)
{
	int r;
	while (s->bytes < limit) {
		if (stopped(s))
			return RB_STOPPED;
		uint64_t want = limit - s->bytes;
		size_t got = 0;
		if ((r = recv_some(s, s->buf, want < s->size ? (size_t)want : s->size, &got)))
			return r;
		int64_t t = rb_now_ns();
		if (!s->first_ns)
			s->first_ns = t;
		s->last_ns = t;
		s->bytes += got;
	}
	return RB_OK;
}

// The public calls: each runs inside enter and leave, for the watchdog.

int rb_sock_ping(struct rb_sock *s, uint64_t n, int64_t deadline_ns, int record)
{
	enter(s);
	return leave(s, rb_window_end(&s->win, ping(s, n, deadline_ns, record)));
}

int rb_sock_pong(struct rb_sock *s, uint64_t n)
{
	enter(s);
	return leave(s, pong(s, n));
}

int rb_sock_send_stream(struct rb_sock *s, uint64_t n, int64_t deadline_ns)
{
	enter(s);
	return leave(s, rb_window_end(&s->win, send_stream(s, n, deadline_ns)));
}

int rb_sock_recv_stream(struct rb_sock *s, uint64_t limit)
{
	enter(s);
	return leave(s, recv_stream(s, limit));
}

int rb_sock_send_all(struct rb_sock *s, const uint8_t *p, size_t len)
{
	enter(s);
	return leave(s, send_all(s, p, len));
}

int rb_sock_recv_full(struct rb_sock *s, uint8_t *p, size_t len)
{
	enter(s);
	return leave(s, recv_full(s, p, len));
}

int rb_sock_recv_some(struct rb_sock *s, uint8_t *p, size_t len, size_t *got)
{
	enter(s);
	return leave(s, recv_some(s, p, len, got));
}
