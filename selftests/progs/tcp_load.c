// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_load: a TCP server and clients over loopback, to profile a server
 * at its peak and when it falls behind (the thesis' Apache case, 6.2).
 *
 *   tcp_load [-d SECONDS] [-c CLIENTS] [-b BACKLOG] [-w ACCEPT_DELAY_US]
 *            [-o WORK_FILE]
 *
 * The protocol is "server speaks first": a client connects and reads;
 * the server accepts, writes a 64-byte greeting and closes; the client
 * reads to the end and closes.  So what a slow server makes wait is known
 * in advance: connections, complete (handshake done by the kernel), sit
 * in the accept queue, each holding a server-side and a client-side TCP
 * socket, while no data skbuff waits (the client sends none, and the
 * greeting is read as soon as it is written).  ACCEPT_DELAY_US of work
 * after each accept makes the server fall behind; with CLIENTS above what
 * it serves, the queue fills up to CLIENTS deep.
 *
 * Prints one line: connections served, seconds, connections/s; writes the
 * connections to WORK_FILE (for dprof-view record --work @WORK_FILE).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

static struct sockaddr_in addr = { .sin_family = AF_INET };
static atomic_long served, failed;
static atomic_int stop;
static long accept_delay_us;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Work that holds the server back without sleeping (a busy server). */
static void busy(long us)
{
	double until = now() + us / 1e6;

	while (us > 0 && now() < until)
		;
}

static void *server(void *arg)
{
	static const char greeting[64] = "220 dprof tcp_load ready\r\n";
	int lfd = *(int *)arg;

	while (!atomic_load(&stop)) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			break;		/* the listener was shut down */
		}
		if (write(fd, greeting, sizeof(greeting)) == sizeof(greeting))
			atomic_fetch_add(&served, 1);
		close(fd);
		busy(accept_delay_us);
	}
	return NULL;
}

static void *client(void *arg)
{
	struct timeval tv = { .tv_sec = 2 };
	char buf[256];

	(void)arg;
	while (!atomic_load(&stop)) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		ssize_t n;

		if (fd < 0) {
			atomic_fetch_add(&failed, 1);
			usleep(1000);
			continue;
		}
		/* A reply stuck in a queue at the end must not hang us. */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
			atomic_fetch_add(&failed, 1);
			close(fd);
			usleep(1000);
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		close(fd);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: tcp_load [-d SECONDS] [-c CLIENTS] [-b BACKLOG] [-w ACCEPT_DELAY_US] [-o WORK_FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long clients = 4, backlog = 16;
	double seconds = 2, start, elapsed;
	const char *work_file = NULL;
	socklen_t alen = sizeof(addr);
	pthread_t srv, *cl;
	int lfd, opt, one = 1;

	while ((opt = getopt(argc, argv, "d:c:b:w:o:")) != -1) {
		switch (opt) {
		case 'd':
			seconds = atof(optarg);
			break;
		case 'c':
			clients = atol(optarg);
			break;
		case 'b':
			backlog = atol(optarg);
			break;
		case 'w':
			accept_delay_us = atol(optarg);
			break;
		case 'o':
			work_file = optarg;
			break;
		default:
			usage();
		}
	}
	if (seconds <= 0 || clients < 1 || clients > 1024 || backlog < 1 ||
	    accept_delay_us < 0)
		usage();
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) ||
	    listen(lfd, (int)backlog)) {
		perror("tcp_load: listen");
		return 1;
	}
	cl = calloc((size_t)clients, sizeof(*cl));
	if (!cl)
		return 1;
	start = now();
	if (pthread_create(&srv, NULL, server, &lfd))
		return 1;
	for (long i = 0; i < clients; i++)
		if (pthread_create(&cl[i], NULL, client, NULL))
			return 1;
	while (now() - start < seconds)
		usleep(10000);
	atomic_store(&stop, 1);
	elapsed = now() - start;
	/* Wakes the server's accept; queued connections are reset. */
	shutdown(lfd, SHUT_RDWR);
	pthread_join(srv, NULL);
	close(lfd);
	for (long i = 0; i < clients; i++)
		pthread_join(cl[i], NULL);
	printf("tcp_load: %ld connections served in %.2f s (%.0f/s), %ld clients, backlog %ld, accept delay %ld us, %ld failed connects\n",
	       atomic_load(&served), elapsed, atomic_load(&served) / elapsed,
	       clients, backlog, accept_delay_us, atomic_load(&failed));
	if (work_file) {
		FILE *f = fopen(work_file, "w");

		if (!f || fprintf(f, "%ld\n", atomic_load(&served)) < 0 ||
		    fclose(f)) {
			perror("tcp_load: work file");
			return 1;
		}
	}
	free(cl);
	return 0;
}
