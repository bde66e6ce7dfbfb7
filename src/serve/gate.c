/*
 * kjudge serve: the gate in front of libmicrohttpd.  It owns the listening
 * socket, accepts every connection itself and reads each request's header
 * block by peeking (MSG_PEEK, so that libmicrohttpd later reads the same
 * bytes), all connections in one epoll loop, edge-triggered so that a
 * partial header costs nothing until more of it arrives.  It closes at once
 * a connection beyond --max-conns or the address's --max-conns-per-ip,
 * answers a header that is not complete within --read-timeout with 408, and
 * a header libmicrohttpd would refuse with its own HTML page (a malformed
 * request line, no Host, an unsupported version, oversized headers, a bad
 * Content-Length, a chunked body) with a JSON error; only a well-formed
 * header reaches libmicrohttpd (MHD_add_connection).  Every answer closes
 * its connection, so every request passes the gate.
 */
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve_int.h"

/* the longest header block (request line and fields) read */
#define GATE_HEADER_MAX (16 * 1024)

struct pend {
	int fd;
	struct sockaddr_storage addr;
	socklen_t alen;
	double deadline;
};

struct kj_gate {
	struct kj_server *S;
	struct MHD_Daemon *d;
	int lfd, efd, wake;
	struct pend *p;   /* connections whose header is being read */
	int np, cap;
	pthread_t th;
	char buf[GATE_HEADER_MAX + 1];
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return 0;
}

static void drop(struct kj_gate *g, int i)
{
	epoll_ctl(g->efd, EPOLL_CTL_DEL, g->p[i].fd, NULL);
	g->p[i] = g->p[--g->np];
}

/* Answers a refused header with {"error": msg} and closes the connection:
 * the header (n bytes, peeked) is consumed first and the input drained
 * after, so that the close does not reset the answer away. */
__attribute__((format(printf, 5, 6))) static int refuse(struct kj_gate *g, int i, size_t n,
							unsigned code, const char *fmt, ...)
{
	static const struct {
		unsigned code;
		const char *text;
	} reasons[] = { { 400, "Bad Request" },
			{ 408, "Request Timeout" },
			{ 411, "Length Required" },
			{ 413, "Content Too Large" },
			{ 414, "URI Too Long" },
			{ 431, "Request Header Fields Too Large" },
			{ 501, "Not Implemented" },
			{ 505, "HTTP Version Not Supported" } };
	int fd = g->p[i].fd;
	char msg[512], out[1200], *body;
	const char *text = "Error";
	json_t *o;
	va_list ap;
	size_t len;
	int m;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the message may quote the client's bytes: ASCII only, so that it is
	 * valid UTF-8 for the JSON */
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 32 || (unsigned char)*c > 126)
			*c = '?';
	for (size_t k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++)
		if (reasons[k].code == code)
			text = reasons[k].text;
	drop(g, i);
	while (n > 0) {
		ssize_t r = recv(fd, g->buf, n < GATE_HEADER_MAX ? n : GATE_HEADER_MAX, MSG_DONTWAIT);
		if (r <= 0)
			break;
		n -= (size_t)r;
	}
	o = json_pack("{s:s}", "error", msg);
	body = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	len = body ? strlen(body) : 0;
	m = snprintf(out, sizeof(out),
		     "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
		     "Connection: close\r\nContent-Length: %zu\r\n\r\n%s\n",
		     code, text, len + 1, body ? body : "");
	free(body);
	if (m > 0 && (size_t)m < sizeof(out))
		(void)!send(fd, out, (size_t)m, MSG_DONTWAIT | MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
	for (int k = 0; k < 16; k++)
		if (recv(fd, g->buf, GATE_HEADER_MAX, MSG_DONTWAIT) <= 0)
			break;
	close(fd);
	return 0;
}

static int tchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* One line of buf from *pos (CRLF or LF): its start and length, *pos past
 * it; -1 when no line end is in [*pos, n). */
static int next_line(const char *buf, size_t n, size_t *pos, const char **line, size_t *len)
{
	const char *s = buf + *pos, *e = memchr(s, '\n', n - *pos);
	if (!e)
		return -1;
	*line = s;
	*len = (size_t)(e - s);
	if (*len && s[*len - 1] == '\r')
		(*len)--;
	*pos = (size_t)(e - buf) + 1;
	return 0;
}

static int name_is(const char *l, size_t nl, const char *name)
{
	return nl == strlen(name) && !strncasecmp(l, name, nl);
}

/* Checks the header in g->buf[0..n) of pending connection i: hands the
 * connection to libmicrohttpd, refuses it, or waits for more.  Returns 0. */
static int screen(struct kj_gate *g, int i, size_t n)
{
	const char *line, *sp1, *sp2;
	size_t pos = 0, len, hlen;
	int minor, host = 0, clen = 0;
	unsigned long long cl = 0;
	struct pend pc;

	if (memchr(g->buf, 0, n))
		return refuse(g, i, n, 400, "the request header holds a NUL byte");
	/* a complete header ends with an empty line */
	{
		size_t p = 0;
		const char *l;
		size_t ll;
		int lines = 0, done = 0;
		while (next_line(g->buf, n, &p, &l, &ll) == 0) {
			/* empty lines before the request line are ignored (RFC 9112 2.2) */
			if (ll == 0 && lines) {
				done = 1;
				break;
			}
			lines += ll != 0;
		}
		if (!done) {
			if (n >= GATE_HEADER_MAX)
				return refuse(g, i, n, 431, "the request header is larger than %d bytes",
						    GATE_HEADER_MAX);
			return 0;
		}
		hlen = p;
	}
	do {
		if (next_line(g->buf, hlen, &pos, &line, &len))
			return refuse(g, i, hlen, 400, "malformed request line");
	} while (len == 0);
	/* METHOD SP TARGET SP HTTP/1.x */
	sp1 = memchr(line, ' ', len);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - line)) : NULL;
	if (!sp1 || !sp2 || sp1 == line || sp2 == sp1 + 1)
		return refuse(g, i, hlen, 400, "malformed request line: want METHOD PATH HTTP/1.1");
	for (const char *c = line; c < sp1; c++)
		if (!tchar((unsigned char)*c))
			return refuse(g, i, hlen, 400, "malformed request line: bad method");
	for (const char *c = sp1 + 1; c < sp2; c++)
		if ((unsigned char)*c <= 32 || *c == 127)
			return refuse(g, i, hlen, 400, "malformed request line: bad path");
	{
		size_t vl = len - (size_t)(sp2 + 1 - line);
		const char *v = sp2 + 1;
		if (vl == 8 && !memcmp(v, "HTTP/1.", 7) && (v[7] == '0' || v[7] == '1')) {
			minor = v[7] - '0';
		} else if (vl == 8 && !memcmp(v, "HTTP/", 5) && v[5] >= '0' && v[5] <= '9' && v[6] == '.' &&
			   v[7] >= '0' && v[7] <= '9') {
			return refuse(g, i, hlen, 505, "HTTP/%c.%c is not supported: use HTTP/1.1",
					    v[5], v[7]);
		} else {
			return refuse(g, i, hlen, 400, "malformed request line: want METHOD PATH "
					    "HTTP/1.1");
		}
	}
	/* header fields: NAME ":" value, no folding */
	while (next_line(g->buf, hlen, &pos, &line, &len) == 0 && len) {
		const char *colon = memchr(line, ':', len), *v;
		size_t nl, vl;
		if (line[0] == ' ' || line[0] == '\t')
			return refuse(g, i, hlen, 400, "a header field continued on another line "
					    "(obsolete line folding)");
		if (!colon || colon == line)
			return refuse(g, i, hlen, 400, "malformed header field: want NAME: VALUE");
		nl = (size_t)(colon - line);
		for (size_t k = 0; k < nl; k++)
			if (!tchar((unsigned char)line[k]))
				return refuse(g, i, hlen, 400, "malformed header field name '%.*s'",
						    (int)(nl < 64 ? nl : 64), line);
		v = colon + 1;
		vl = len - nl - 1;
		while (vl && (*v == ' ' || *v == '\t'))
			v++, vl--;
		while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			vl--;
		for (size_t k = 0; k < vl; k++)
			if (((unsigned char)v[k] < 32 && v[k] != '\t') || v[k] == 127)
				return refuse(g, i, hlen, 400, "a control character in header field '%.*s'",
						    (int)(nl < 64 ? nl : 64), line);
		if (name_is(line, nl, "Host"))
			host++;
		else if (name_is(line, nl, "Transfer-Encoding"))
			return refuse(g, i, hlen, 411, "Transfer-Encoding is not accepted: send the body "
					    "with a Content-Length");
		else if (name_is(line, nl, "Content-Length")) {
			unsigned long long x = 0;
			if (!vl || vl > 19)
				return refuse(g, i, hlen, 400, "bad Content-Length '%.*s'",
						    (int)(vl < 40 ? vl : 40), v);
			for (size_t k = 0; k < vl; k++) {
				if (v[k] < '0' || v[k] > '9')
					return refuse(g, i, hlen, 400, "bad Content-Length '%.*s'",
							    (int)(vl < 40 ? vl : 40), v);
				x = x * 10 + (unsigned)(v[k] - '0');
			}
			if (clen && x != cl)
				return refuse(g, i, hlen, 400, "two different Content-Length fields");
			cl = x;
			clen = 1;
		}
	}
	if (minor == 1 && host != 1)
		return refuse(g, i, hlen, 400, host ? "more than one Host field"
							  : "an HTTP/1.1 request needs a Host field");
	if (clen && cl > (1ull << 62))
		return refuse(g, i, hlen, 413, "Content-Length %llu is too large", cl);
	/* well-formed: libmicrohttpd reads it again from the socket */
	pc = g->p[i];
	drop(g, i);
	if (MHD_add_connection(g->d, pc.fd, (const struct sockaddr *)&pc.addr, pc.alen) != MHD_YES)
		kj_serve_log(g->S, "a connection could not be handed to the HTTP server: %s",
			     strerror(errno));
	return 0;
}

static void on_readable(struct kj_gate *g, int i)
{
	ssize_t r = recv(g->p[i].fd, g->buf, GATE_HEADER_MAX, MSG_PEEK | MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		int fd = g->p[i].fd;
		drop(g, i);
		close(fd);
		return;
	}
	if (r > 0)
		screen(g, i, (size_t)r);
}

static void on_accept(struct kj_gate *g)
{
	struct kj_server *S = g->S;
	for (;;) {
		struct pend pc;
		struct epoll_event ev;
		const union MHD_DaemonInfo *info;
		unsigned same = 0, active = 0;
		memset(&pc, 0, sizeof(pc));
		pc.alen = sizeof(pc.addr);
		pc.fd = accept4(g->lfd, (struct sockaddr *)&pc.addr, &pc.alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (pc.fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE)
				kj_serve_log(S, "cannot accept a connection: %s", strerror(errno));
			return;
		}
		for (int k = 0; k < g->np; k++)
			same += same_host(&g->p[k].addr, &pc.addr);
		info = MHD_get_daemon_info(g->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (info)
			active = info->num_connections;
		/* beyond the limits a connection is closed before anything is read */
		if (same >= S->conns_per_ip || (unsigned)g->np + active >= S->max_conns || g->np == g->cap) {
			close(pc.fd);
			continue;
		}
		pc.deadline = mono_now() + S->read_timeout_s;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
		ev.data.fd = pc.fd;
		if (epoll_ctl(g->efd, EPOLL_CTL_ADD, pc.fd, &ev)) {
			close(pc.fd);
			continue;
		}
		g->p[g->np++] = pc;
		/* the header may be there already: edge-triggered epoll reports
		 * only what arrives from now on */
		on_readable(g, g->np - 1);
	}
}

static void *gate_main(void *arg)
{
	struct kj_gate *g = arg;
	struct epoll_event evs[64];
	for (;;) {
		double now = mono_now(), next = now + 1;
		int n, ms;
		for (int i = 0; i < g->np;) {
			if (g->p[i].deadline <= now) {
				refuse(g, i, 0, 408, "the request header did not arrive within %u s "
				       "(--read-timeout)", g->S->read_timeout_s);
				continue;
			}
			if (g->p[i].deadline < next)
				next = g->p[i].deadline;
			i++;
		}
		ms = (int)((next - now) * 1000) + 1;
		n = epoll_wait(g->efd, evs, 64, ms);
		for (int k = 0; k < n; k++) {
			int fd = evs[k].data.fd;
			if (fd == g->wake)
				return NULL;
			if (fd == g->lfd) {
				on_accept(g);
				continue;
			}
			for (int i = 0; i < g->np; i++)
				if (g->p[i].fd == fd) {
					on_readable(g, i);
					break;
				}
		}
	}
}

int kj_gate_listen(const struct sockaddr_storage *addr, int *port, struct kj_err *err)
{
	socklen_t alen = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						     : sizeof(struct sockaddr_in);
	struct sockaddr_storage got;
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
	uint16_t want = ntohs(addr->ss_family == AF_INET6
				     ? ((const struct sockaddr_in6 *)addr)->sin6_port
				     : ((const struct sockaddr_in *)addr)->sin_port);
	if (fd < 0)
		return kj_err_sys(err, "cannot make a listening socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)addr, alen) || listen(fd, SOMAXCONN)) {
		int e = errno;
		close(fd);
		errno = e;
		return kj_err_sys(err, "cannot listen on port %u", (unsigned)want);
	}
	alen = sizeof(got);
	*port = want;
	if (getsockname(fd, (struct sockaddr *)&got, &alen) == 0)
		*port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
							: ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

int kj_gate_start(struct kj_server *S, int lfd, struct MHD_Daemon *d, struct kj_gate **out,
		  struct kj_err *err)
{
	struct kj_gate *g = calloc(1, sizeof(*g));
	struct epoll_event ev;
	*out = NULL;
	if (!g)
		return kj_err_set(err, KJ_E_NOMEM, "serve: out of memory");
	g->S = S;
	g->d = d;
	g->lfd = lfd;
	g->cap = (int)S->max_conns;
	g->p = calloc((size_t)g->cap, sizeof(*g->p));
	g->efd = epoll_create1(EPOLL_CLOEXEC);
	g->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!g->p || g->efd < 0 || g->wake < 0)
		goto fail;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	if (epoll_ctl(g->efd, EPOLL_CTL_ADD, lfd, &ev))
		goto fail;
	ev.data.fd = g->wake;
	if (epoll_ctl(g->efd, EPOLL_CTL_ADD, g->wake, &ev))
		goto fail;
	if (pthread_create(&g->th, NULL, gate_main, g))
		goto fail;
	*out = g;
	return 0;
fail:
	kj_err_sys(err, "cannot start the connection gate");
	if (g->efd >= 0)
		close(g->efd);
	if (g->wake >= 0)
		close(g->wake);
	free(g->p);
	free(g);
	return KJ_E_SYS;
}

void kj_gate_stop(struct kj_gate *g)
{
	uint64_t one = 1;
	if (!g)
		return;
	(void)!write(g->wake, &one, sizeof(one));
	pthread_join(g->th, NULL);
	for (int i = 0; i < g->np; i++)
		close(g->p[i].fd);
	close(g->efd);
	close(g->wake);
	free(g->p);
	free(g);
}
