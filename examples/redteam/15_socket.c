// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 15 (escaping the worker through the network): opens a TCP
 * socket to send its inputs out (or fetch an answer).  The symbol policy
 * rejects socket/connect; the seccomp filter refuses socket(2) with EPERM
 * for code that reaches the kernel without the symbol. */
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {0};

	a.sin_family = AF_INET;
	a.sin_port = htons(9);
	if (s >= 0)
		connect(s, (struct sockaddr *)&a, sizeof(a));
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
