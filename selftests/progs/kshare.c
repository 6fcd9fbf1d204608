// SPDX-License-Identifier: GPL-2.0
/*
 * kshare: real kernel objects shared between two CPUs in a fixed order,
 * for the selftests on caches dprof did not make (test-kernel-objects.sh
 * gives the reasoning per field).  Two threads of one process, pinned to
 * CPUs 0 and 1, take turns: each step of one thread is followed by one
 * step of the other, so the order of their accesses, and with it which
 * access follows the other CPU's write, does not depend on the scheduler.
 *
 *   kshare file ROUNDS STEPS FILE
 *       CPU 0 opens FILE (a struct file from the filp cache); the threads
 *       then read 16 bytes from it in turns, STEPS reads each; CPU 0
 *       closes it.
 *   kshare udp ROUNDS STEPS
 *       CPU 0 opens a receiving and a sending UDP socket (objects of the
 *       UDP cache); in turns, CPU 0 sends one datagram over loopback and
 *       CPU 1 receives it, STEPS times; CPU 0 closes both.
 *
 * Prints one line with the steps done; exits 1 on any failed call.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>

struct shared {
	const char *mode, *path;
	long rounds, steps;
	atomic_int turn;	/* the turn being taken (futex word) */
	atomic_int fd;		/* this round's file, or receiving socket */
	atomic_int port;	/* the receiving socket's port */
	atomic_int failed;
	long done;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("kshare: sched_setaffinity");
		exit(1);
	}
}

/*
 * Wait for turn @t, asleep on a futex: spinning threads on both CPUs
 * would starve dprof's collector thread, which arms the breakpoints.
 */
static int wait_turn(struct shared *s, long t)
{
	int cur;

	while ((cur = atomic_load(&s->turn)) != (int)t) {
		if (atomic_load(&s->failed))
			return -1;
		syscall(SYS_futex, &s->turn, FUTEX_WAIT_PRIVATE, cur, NULL,
			NULL, 0);
	}
	return 0;
}

static void pass_turn(struct shared *s, long next)
{
	atomic_store(&s->turn, (int)next);
	syscall(SYS_futex, &s->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void fail(struct shared *s, const char *what)
{
	perror(what);
	atomic_store(&s->failed, 1);
	/* The other thread may be asleep waiting for a turn. */
	atomic_fetch_add(&s->turn, 1 << 30);
	syscall(SYS_futex, &s->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * A round is a list of turns, each taken by one CPU:
 *   file: 0 CPU 0 opens; 1 .. 2*steps reads, CPU 1 on odd turns, CPU 0 on
 *         even ones; 2*steps + 1 CPU 0 closes.
 *   udp:  0 CPU 0 opens the receiving socket, 1 the sending one;
 *         2 .. 2*steps + 1 CPU 0 sends on even turns, CPU 1 receives on
 *         odd ones (the datagram is queued before its receive starts);
 *         2*steps + 2 CPU 0 closes the sending one, then the receiving.
 * Objects are allocated and freed on CPU 0 only, so dprof's collector,
 * which arms on the CPU that allocates most, watches both sockets.
 */
static long turns_per_round(const struct shared *s, int udp)
{
	return 2 * s->steps + (udp ? 4 : 2);
}

static int turn_cpu(const struct shared *s, int udp, long k)
{
	long last = turns_per_round(s, udp) - 1;

	if (!udp)
		return k == 0 || k == last ? 0 : (k & 1);
	return k <= 1 || k >= last - 1 ? 0 : (k & 1);
}

static void file_turn(struct shared *s, int cpu, long k)
{
	char buf[16];

	if (k == 0) {
		int fd = open(s->path, O_RDONLY);

		if (fd < 0)
			fail(s, "kshare: open");
		atomic_store(&s->fd, fd);
	} else if (k <= 2 * s->steps) {
		if (read(atomic_load(&s->fd), buf, sizeof(buf)) < 0)
			fail(s, "kshare: read");
		s->done += cpu == 0;
	} else if (close(atomic_load(&s->fd))) {
		fail(s, "kshare: close");
	}
}

static int udp_open(struct shared *s, int receiving)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (receiving) {
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
		    getsockname(fd, (struct sockaddr *)&a, &len))
			return -1;
		atomic_store(&s->port, a.sin_port);
		atomic_store(&s->fd, fd);
		return fd;
	}
	a.sin_port = atomic_load(&s->port);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return fd;
}

static void udp_turn(struct shared *s, int cpu, long k, int *tx)
{
	char buf[16] = "dprof";

	if (k == 0) {
		if (udp_open(s, 1) < 0)
			fail(s, "kshare: receiving socket");
	} else if (k == 1) {
		*tx = udp_open(s, 0);
		if (*tx < 0)
			fail(s, "kshare: sending socket");
	} else if (k <= 2 * s->steps + 1) {
		if (cpu == 0 && send(*tx, buf, sizeof(buf), 0) < 0)
			fail(s, "kshare: send");
		if (cpu == 1 && recv(atomic_load(&s->fd), buf, sizeof(buf), 0) < 0)
			fail(s, "kshare: recv");
		s->done += cpu == 1;
	} else if (k == 2 * s->steps + 2) {
		close(*tx);
	} else {
		close(atomic_load(&s->fd));
	}
}

static void *run(void *arg, int cpu)
{
	struct shared *s = arg;
	int udp = !strcmp(s->mode, "udp"), tx = -1;
	long per_round = turns_per_round(s, udp);

	pin(cpu);
	for (long r = 0; r < s->rounds; r++) {
		for (long k = 0; k < per_round; k++) {
			long t = r * per_round + k;

			if (turn_cpu(s, udp, k) != cpu)
				continue;
			if (wait_turn(s, t))
				return NULL;
			if (udp)
				udp_turn(s, cpu, k, &tx);
			else
				file_turn(s, cpu, k);
			if (atomic_load(&s->failed))
				return NULL;
			pass_turn(s, t + 1);
		}
	}
	return NULL;
}

static void *cpu1(void *arg)
{
	return run(arg, 1);
}

int main(int argc, char **argv)
{
	static struct shared s;
	pthread_t other;

	if (argc < 4 || (strcmp(argv[1], "file") && strcmp(argv[1], "udp")) ||
	    (!strcmp(argv[1], "file") && argc < 5)) {
		fprintf(stderr, "usage: kshare file ROUNDS STEPS FILE | kshare udp ROUNDS STEPS\n");
		return 2;
	}
	s.mode = argv[1];
	s.rounds = atol(argv[2]);
	s.steps = atol(argv[3]);
	s.path = argc > 4 ? argv[4] : NULL;
	if (s.rounds < 1 || s.steps < 1) {
		fprintf(stderr, "kshare: ROUNDS and STEPS must be positive\n");
		return 2;
	}
	if (pthread_create(&other, NULL, cpu1, &s)) {
		perror("kshare: pthread_create");
		return 1;
	}
	run(&s, 0);
	pthread_join(other, NULL);
	if (atomic_load(&s.failed))
		return 1;
	printf("kshare %s: %ld rounds, %ld steps\n", s.mode, s.rounds, s.done);
	return 0;
}
