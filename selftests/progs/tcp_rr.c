// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rr: request/response over long-lived TCP connections on loopback,
 * as neper's tcp_rr runs it: the steady state of an established socket
 * (the fast path the networking maintainers grouped tcp_sock's members
 * for), without connection set-up or tear-down after the start.
 *
 *   tcp_rr [-u] [-d SECONDS] [-c CONNECTIONS] [-s BYTES]
 *
 * CONNECTIONS client threads (default 8) each open one connection and
 * then, until SECONDS (default 10) have passed, write a request of BYTES
 * (default 64) and read the server's response of the same size; a
 * server thread per connection reads each request whole and writes it
 * back.  -u: the same over UDP, a connected pair of sockets per
 * "connection" (struct sock's receive and send paths without TCP's).
 * Prints one line: transactions, seconds, transactions/s.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#define MAX_CONN 256
#define MAX_BYTES 4096

static struct sockaddr_in addr = { .sin_family = AF_INET };
static atomic_long transactions;
static atomic_int stop;
static size_t bytes = 64;
static int udp;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Exactly @n bytes, or -1 (peer gone). */
static int read_all(int fd, char *buf, size_t n)
{
	while (n) {
		ssize_t r = read(fd, buf, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *server(void *arg)
{
	int fd = (int)(long)arg;
	char buf[MAX_BYTES];

	while (!read_all(fd, buf, bytes) && !write_all(fd, buf, bytes))
		;
	close(fd);
	return NULL;
}

static void *client(void *arg)
{
	int fd = (int)(long)arg;
	char buf[MAX_BYTES];

	memset(buf, 'q', sizeof(buf));
	while (!atomic_load(&stop)) {
		if (write_all(fd, buf, bytes) || read_all(fd, buf, bytes))
			break;
		atomic_fetch_add(&transactions, 1);
	}
	shutdown(fd, SHUT_WR);
	return NULL;
}

/* A UDP socket on loopback's next free port, connected to @peer if given. */
static int udp_socket(struct sockaddr_in *self, const struct sockaddr_in *peer)
{
	socklen_t len = sizeof(*self);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	*self = (struct sockaddr_in){ .sin_family = AF_INET };
	self->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)self, sizeof(*self)) ||
	    getsockname(fd, (struct sockaddr *)self, &len) ||
	    (peer && connect(fd, (const struct sockaddr *)peer, sizeof(*peer))))
		return -1;
	return fd;
}

static void wait_and_join(pthread_t *cli, pthread_t *srv, const int *sfd,
			  int conns, double seconds)
{
	double start = now();

	while (now() - start < seconds)
		usleep(10000);
	atomic_store(&stop, 1);
	for (int i = 0; i < conns; i++) {
		pthread_join(cli[i], NULL);
		/* A UDP server gets no end of file: its socket is shut. */
		if (sfd)
			shutdown(sfd[i], SHUT_RDWR);
		pthread_join(srv[i], NULL);
	}
	printf("%ld transactions in %.1f s, %.0f/s\n", atomic_load(&transactions),
	       now() - start, atomic_load(&transactions) / (now() - start));
}

static int run_udp(int conns, double seconds)
{
	pthread_t cli[MAX_CONN], srv[MAX_CONN];
	int sfd[MAX_CONN];

	for (int i = 0; i < conns; i++) {
		struct sockaddr_in s_addr, c_addr;
		int c;

		sfd[i] = udp_socket(&s_addr, NULL);
		c = udp_socket(&c_addr, &s_addr);
		if (sfd[i] < 0 || c < 0 ||
		    connect(sfd[i], (struct sockaddr *)&c_addr, sizeof(c_addr))) {
			perror("tcp_rr: udp");
			return 1;
		}
		if (pthread_create(&srv[i], NULL, server, (void *)(long)sfd[i]) ||
		    pthread_create(&cli[i], NULL, client, (void *)(long)c)) {
			fprintf(stderr, "tcp_rr: no thread\n");
			return 1;
		}
	}
	wait_and_join(cli, srv, sfd, conns, seconds);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tcp_rr [-u] [-d SECONDS] [-c CONNECTIONS (1..%d)] [-s BYTES (1..%d)]\n",
		MAX_CONN, MAX_BYTES);
	return 2;
}

int main(int argc, char **argv)
{
	pthread_t cli[MAX_CONN], srv[MAX_CONN];
	int conns = 8, lfd, one = 1, opt;
	double seconds = 10;
	socklen_t len = sizeof(addr);

	while ((opt = getopt(argc, argv, "ud:c:s:")) != -1) {
		switch (opt) {
		case 'u':
			udp = 1;
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		case 'c':
			conns = atoi(optarg);
			break;
		case 's':
			bytes = (size_t)atol(optarg);
			break;
		default:
			return usage();
		}
	}
	if (seconds <= 0 || conns < 1 || conns > MAX_CONN || bytes < 1 ||
	    bytes > MAX_BYTES)
		return usage();
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (udp)
		return run_udp(conns, seconds);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &len) ||
	    listen(lfd, MAX_CONN)) {
		perror("tcp_rr: listen");
		return 1;
	}
	for (int i = 0; i < conns; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s;

		if (c < 0 || connect(c, (struct sockaddr *)&addr, sizeof(addr)) ||
		    (s = accept(lfd, NULL, NULL)) < 0) {
			perror("tcp_rr: connect");
			return 1;
		}
		/* Requests and responses go out at once, as tcp_rr's do. */
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&srv[i], NULL, server, (void *)(long)s) ||
		    pthread_create(&cli[i], NULL, client, (void *)(long)c)) {
			fprintf(stderr, "tcp_rr: no thread\n");
			return 1;
		}
	}
	wait_and_join(cli, srv, NULL, conns, seconds);
	return 0;
}
