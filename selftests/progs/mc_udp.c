// SPDX-License-Identifier: GPL-2.0
/*
 * mc_udp: a memcached client over UDP, as the DProf thesis' load
 * generators ran it (§6.1): each flow asks for one missing key again and
 * again, one request outstanding per flow.  memcslap --udp aborts on a
 * get, hence a client of the project's.
 *
 *   mc_udp [-c CPU] [-d SECONDS] [-n REQUESTS] [-w MS] SERVER:PORT FLOW...
 *   mc_udp -I PREFIX [-w MS] SERVER:PORT FLOW...
 *
 * A FLOW is SRCADDR:SRCPORT, the socket's own address (port 0: any).
 * The load prints one line: flows, requests, replies, timeouts, seconds
 * and replies a second; it fails when no reply came.  With -I (probe),
 * each flow sends one request and waits for its reply, then names the
 * interrupt of /proc/interrupts whose name starts with PREFIX and whose
 * count grew the most, or '-': a receive queue's vector tells which
 * queue the NIC's RSS hash put the flow on, a transmit queue's which
 * queue the server's reply took ("FLOW NAME" a line).
 * A request with no reply within -w MS (default 200) is sent again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#define MAX_FLOWS	256
#define MAX_IRQS	512

struct flow {
	int fd;
	uint16_t request_id;
	double sent_at;
	const char *name;
};

struct irq_count {
	char name[64];
	unsigned long long count;
};

static const char request_key[] = "get dprof-missing-key\r\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_addr(const char *s, struct sockaddr_in *a)
{
	char host[64];
	const char *colon = strrchr(s, ':');

	if (!colon || colon - s >= (long)sizeof(host))
		return -1;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(atoi(colon + 1));
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

/* memcached's UDP frame: request id, sequence 0, 1 datagram, reserved. */
static int send_request(struct flow *f)
{
	unsigned char buf[8 + sizeof(request_key)];

	f->request_id++;
	buf[0] = f->request_id >> 8;
	buf[1] = f->request_id & 0xff;
	memset(buf + 2, 0, 6);
	buf[5] = 1;
	memcpy(buf + 8, request_key, sizeof(request_key) - 1);
	f->sent_at = now();
	return send(f->fd, buf, 8 + sizeof(request_key) - 1, 0) < 0 ? -1 : 0;
}

/* A reply to the flow's outstanding request: 1; another datagram: 0. */
static int read_reply(struct flow *f)
{
	unsigned char buf[2048];
	ssize_t n = recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT);

	return n >= 8 && ((buf[0] << 8) | buf[1]) == f->request_id;
}

static int open_flow(struct flow *f, const char *spec,
		     const struct sockaddr_in *server)
{
	struct sockaddr_in self;

	if (parse_addr(spec, &self)) {
		fprintf(stderr, "mc_udp: '%s' is not ADDR:PORT\n", spec);
		return -1;
	}
	f->name = spec;
	f->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (f->fd < 0 || bind(f->fd, (struct sockaddr *)&self, sizeof(self)) ||
	    connect(f->fd, (const struct sockaddr *)server, sizeof(*server))) {
		fprintf(stderr, "mc_udp: flow %s: %s\n", spec, strerror(errno));
		return -1;
	}
	return 0;
}

/* The counts of the interrupts whose name starts with @prefix. */
static int read_irqs(const char *prefix, struct irq_count *irq)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	int n = 0;

	if (!f)
		return -1;
	while (n < MAX_IRQS && fgets(line, sizeof(line), f)) {
		unsigned long long sum = 0, v;
		char *p = strchr(line, ':'), *name, *end;

		if (!p)
			continue;
		p++;
		while ((v = strtoull(p, &end, 10)), end != p) {
			sum += v;
			p = end;
		}
		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, ' ');
		if (!name || strncmp(name + 1, prefix, strlen(prefix)))
			continue;
		snprintf(irq[n].name, sizeof(irq[n].name), "%s", name + 1);
		irq[n++].count = sum;
	}
	fclose(f);
	return n;
}

/* Wait for the flow's reply, sending again every @wait_s. */
static int await_reply(struct flow *f, double wait_s, int tries)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };

	while (tries > 0) {
		if (poll(&p, 1, (int)(wait_s * 1000)) > 0) {
			if (read_reply(f))
				return 0;
			continue;
		}
		tries--;
		if (tries && send_request(f))
			return -1;
	}
	return -1;
}

static int probe(struct flow *flows, int nr, const char *prefix,
		 double wait_s)
{
	static struct irq_count before[MAX_IRQS], after[MAX_IRQS];

	for (int i = 0; i < nr; i++) {
		int nb = read_irqs(prefix, before), na, best = -1;
		unsigned long long grew = 0;

		if (nb < 0 || send_request(&flows[i]) ||
		    await_reply(&flows[i], wait_s, 5)) {
			printf("%s -\n", flows[i].name);
			continue;
		}
		/*
		 * The reply is in: the request's receive interrupt has been
		 * taken.  The reply's transmit completion comes after it
		 * left, within the NIC's interrupt moderation (igb: some
		 * 100 us): wait for it too.
		 */
		usleep(20000);
		na = read_irqs(prefix, after);
		for (int k = 0; k < na && k < nb; k++)
			if (after[k].count - before[k].count > grew) {
				grew = after[k].count - before[k].count;
				best = k;
			}
		printf("%s %s\n", flows[i].name, best < 0 ? "-" : after[best].name);
	}
	return 0;
}

static int load(struct flow *flows, int nr, double seconds, long requests,
		double wait_s)
{
	static struct pollfd p[MAX_FLOWS];
	long sent = 0, replies = 0, timeouts = 0;
	double start = now(), t;

	for (int i = 0; i < nr; i++) {
		p[i].fd = flows[i].fd;
		p[i].events = POLLIN;
		if (send_request(&flows[i]))
			return 1;
		sent++;
	}
	while ((t = now()) - start < seconds && (!requests || replies < requests)) {
		if (poll(p, nr, 10) < 0 && errno != EINTR)
			break;
		t = now();
		for (int i = 0; i < nr; i++) {
			int got = (p[i].revents & POLLIN) && read_reply(&flows[i]);

			if (!got && t - flows[i].sent_at < wait_s)
				continue;
			replies += got;
			timeouts += !got;
			if (send_request(&flows[i]) == 0)
				sent++;
		}
	}
	t = now() - start;
	printf("mc_udp: %d flows, %ld requests, %ld replies, %ld timeouts in %.2f s: %.0f replies/s\n",
	       nr, sent, replies, timeouts, t, replies / t);
	return replies ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct flow flows[MAX_FLOWS];
	const char *irq_prefix = NULL;
	double seconds = 10, wait_s = 0.2;
	struct sockaddr_in server;
	long requests = 0;
	int cpu = -1, opt, nr = 0;

	while ((opt = getopt(argc, argv, "c:d:n:w:I:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'n': requests = atol(optarg); break;
		case 'w': wait_s = atof(optarg) / 1000; break;
		case 'I': irq_prefix = optarg; break;
		default:
			fprintf(stderr, "usage: mc_udp [-c CPU] [-d SECONDS] [-n REQUESTS] [-w MS] [-I IRQ_PREFIX] SERVER:PORT SRCADDR:SRCPORT...\n");
			return 2;
		}
	}
	if (argc - optind < 2 || parse_addr(argv[optind], &server)) {
		fprintf(stderr, "mc_udp: give SERVER:PORT and at least one SRCADDR:SRCPORT\n");
		return 2;
	}
	if (argc - optind - 1 > MAX_FLOWS) {
		fprintf(stderr, "mc_udp: at most %d flows\n", MAX_FLOWS);
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("mc_udp: pin");
			return 1;
		}
	}
	for (int i = optind + 1; i < argc; i++)
		if (open_flow(&flows[nr++], argv[i], &server))
			return 1;
	if (irq_prefix)
		return probe(flows, nr, irq_prefix, wait_s);
	return load(flows, nr, seconds, requests, wait_s);
}
