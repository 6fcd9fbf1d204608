// SPDX-License-Identifier: GPL-2.0
/*
 * udp_flood: real UDP traffic over loopback between two processes pinned to
 * different CPUs, so that each datagram's skbuff is allocated on the
 * sender's CPU and freed on the receiver's.
 *   udp_flood [-s SENDER_CPU] [-r RECEIVER_CPU] [-n PACKETS] [-d SECONDS]
 *             [-l BYTES] [-m]
 * Prints one line: packets sent and received, seconds, packets/s.
 * -m: the sender and the receiver execute the insncount plugin's markers
 * around their loops (referee/insncount.c), so that make bench-insns
 * counts what a packet costs on both CPUs (scripts/bench-insns.sh -w udp).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The insncount plugin's long nops: counting on and off for this vCPU. */
static void marker(int on)
{
	if (on)
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44505231");
	else
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44505230");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int sender_cpu = 0, receiver_cpu = 1, len = 64, opt, rx, tx, pipefd[2];
	long packets = 100000, sent = 0, received = 0;
	double seconds = 0, start, elapsed;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	char buf[65536];
	int markers = 0;
	pid_t child;

	while ((opt = getopt(argc, argv, "s:r:n:d:l:m")) != -1) {
		switch (opt) {
		case 's': sender_cpu = atoi(optarg); break;
		case 'r': receiver_cpu = atoi(optarg); break;
		case 'n': packets = atol(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'l': len = atoi(optarg); break;
		case 'm': markers = 1; break;
		default:
			fprintf(stderr, "usage: udp_flood [-s CPU] [-r CPU] [-n PACKETS] [-d SECONDS] [-l BYTES] [-m]\n");
			return 2;
		}
	}
	if (len < 1 || len > (int)sizeof(buf)) {
		fprintf(stderr, "udp_flood: -l must be 1..%zu\n", sizeof(buf));
		return 2;
	}
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || bind(rx, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(rx, (struct sockaddr *)&addr, &alen)) {
		perror("udp_flood: receiver socket");
		return 1;
	}
	setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (pipe(pipefd)) {
		perror("udp_flood: pipe");
		return 1;
	}
	child = fork();
	if (child == 0) {
		/* Receiver: count datagrams until the sender goes quiet. */
		close(pipefd[0]);
		if (pin(receiver_cpu))
			perror("udp_flood: pin receiver");
		if (markers)
			marker(1);
		for (;;) {
			ssize_t n = recv(rx, buf, sizeof(buf), 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;	/* timeout: sender finished */
			received++;
		}
		if (markers)
			marker(0);
		if (write(pipefd[1], &received, sizeof(received)) < 0)
			return 1;
		return 0;
	}
	close(pipefd[1]);
	if (pin(sender_cpu))
		perror("udp_flood: pin sender");
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || connect(tx, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("udp_flood: sender socket");
		return 1;
	}
	memset(buf, 'x', len);
	start = now();
	if (markers)
		marker(1);
	while (seconds > 0 ? now() - start < seconds : sent < packets) {
		if (send(tx, buf, len, 0) == len)
			sent++;
		else if (errno != ENOBUFS && errno != EAGAIN &&
			 errno != ECONNREFUSED)
			break;
	}
	if (markers)
		marker(0);
	elapsed = now() - start;
	if (read(pipefd[0], &received, sizeof(received)) != sizeof(received))
		received = -1;
	waitpid(child, NULL, 0);
	printf("udp_flood: sent %ld received %ld in %.3f s: %.0f packets/s (cpu %d -> cpu %d)\n",
	       sent, received, elapsed, sent / elapsed, sender_cpu,
	       receiver_cpu);
	return received > 0 ? 0 : 1;
}
