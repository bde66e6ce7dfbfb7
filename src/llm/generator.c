/*
 * A generator command as the model: /bin/sh -c CMD in its own process group,
 * the prompt on its stdin, the answer from its stdout (capped), a wall-clock
 * limit after which the whole group is killed.  Its stderr is the caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/llm.h"
#include "kjudge/sandbox.h"

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

extern char **environ;

/* environ with the extra "NAME=value" strings replacing or adding to it;
 * the array is malloc'd, its strings borrowed. */
static char **make_env(const char *const *extra)
{
	size_t ne = 0, nx = 0, k = 0;
	char **v;
	while (environ && environ[ne])
		ne++;
	while (extra && extra[nx])
		nx++;
	if (!(v = calloc(ne + nx + 1, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < ne; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int over = 0;
		for (size_t j = 0; j < nx && !over; j++)
			over = !strncmp(extra[j], environ[i], nl) && extra[j][nl] == '=';
		if (!over)
			v[k++] = environ[i];
	}
	for (size_t j = 0; j < nx; j++)
		v[k++] = (char *)extra[j];
	v[k] = NULL;
	return v;
}

int kj_llm_generate(const struct kj_gen_opts *o, const char *prompt, char **answer,
		    struct kj_err *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, status = 0, rc = 0, killed = 0;
	double limit = o->timeout_s > 0 ? o->timeout_s : 600, t0;
	size_t cap = o->max_output ? o->max_output : (4u << 20), plen = strlen(prompt), sent = 0;
	struct kj_capbuf buf;
	struct sigaction ign, old_pipe;
	pid_t pid;
	char **envp;
	*answer = NULL;
	if (!o->cmd || !*o->cmd)
		return kj_err_set(err, KJ_E_USAGE, "no generator command");
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		rc = kj_err_sys(err, "cannot make pipes for the generator");
		close_fd(&in[0]);
		close_fd(&in[1]);
		return rc;
	}
	if (!(envp = make_env(o->env))) {
		close_fd(&in[0]);
		close_fd(&in[1]);
		close_fd(&out[0]);
		close_fd(&out[1]);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	pid = fork();
	if (pid < 0) {
		free(envp);
		rc = kj_err_sys(err, "cannot fork the generator");
		close_fd(&in[0]);
		close_fd(&in[1]);
		close_fd(&out[0]);
		close_fd(&out[1]);
		return rc;
	}
	if (pid == 0) {
		/* the child: only async-signal-safe calls until exec */
		char *argv[] = { "sh", "-c", (char *)o->cmd, NULL };
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		signal(SIGPIPE, SIG_DFL);
		execve("/bin/sh", argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);
	free(envp);
	close_fd(&in[0]);
	close_fd(&out[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	/* a generator that does not read its stdin must not kill us with SIGPIPE */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	kj_capbuf_init(&buf, cap);
	t0 = mono_s();
	if (!plen)
		close_fd(&in[1]);
	while (out[0] >= 0) {
		struct pollfd pf[2];
		int np = 0, left_ms;
		double left = limit - (mono_s() - t0);
		if (left <= 0) {
			killed = 1;
			break;
		}
		left_ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		pf[np].fd = out[0];
		pf[np].events = POLLIN;
		pf[np++].revents = 0;
		if (in[1] >= 0) {
			pf[np].fd = in[1];
			pf[np].events = POLLOUT;
			pf[np++].revents = 0;
		}
		if (poll(pf, (nfds_t)np, left_ms) < 0) {
			if (errno == EINTR)
				continue;
			rc = kj_err_sys(err, "poll on the generator's pipes");
			killed = 1;
			break;
		}
		if (np > 1 && pf[1].revents) {
			ssize_t w = write(in[1], prompt + sent, plen - sent);
			if (w > 0)
				sent += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == plen)
				close_fd(&in[1]);
		}
		if (pf[0].revents) {
			char chunk[65536];
			ssize_t r = read(out[0], chunk, sizeof(chunk));
			if (r > 0) {
				kj_capbuf_add(&buf, chunk, (size_t)r);
				if (buf.total > cap) {
					rc = kj_err_set(err, KJ_E_IO, "generator '%s' wrote more than %zu bytes", o->cmd, cap);
					killed = 1;
					break;
				}
			} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
				close_fd(&out[0]);
			}
		}
	}
	close_fd(&in[1]);
	close_fd(&out[0]);
	if (killed)
		kill(-pid, SIGKILL);
	/* stdout closed: wait for the exit, still bounded by the limit */
	for (;;) {
		pid_t w = waitpid(pid, &status, killed ? 0 : WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = 0;
			break;
		}
		if (w == 0) {
			if (mono_s() - t0 > limit) {
				killed = 1;
				kill(-pid, SIGKILL);
				continue;
			}
			usleep(2000);
		}
	}
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (!rc && killed)
		rc = kj_err_set(err, KJ_E_TIMEOUT, "generator '%s' ran past its limit of %g s (killed)", o->cmd,
				limit);
	else if (!rc && WIFSIGNALED(status))
		rc = kj_err_set(err, KJ_E_IO, "generator '%s' died of signal %d", o->cmd, WTERMSIG(status));
	else if (!rc && WIFEXITED(status) && WEXITSTATUS(status))
		rc = kj_err_set(err, KJ_E_IO, "generator '%s' exited with status %d", o->cmd, WEXITSTATUS(status));
	if (rc) {
		kj_capbuf_release(&buf);
		return rc;
	}
	*answer = malloc(buf.len + 1);
	if (!*answer) {
		kj_capbuf_release(&buf);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	memcpy(*answer, buf.buf, buf.len);
	(*answer)[buf.len] = 0;
	kj_capbuf_release(&buf);
	return 0;
}
