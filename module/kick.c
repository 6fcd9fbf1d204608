// SPDX-License-Identifier: GPL-2.0
/*
 * The kick (see watch.h): a hook, in any context but NMI, wakes the
 * collector thread through an irq_work, which may run where a wake_up()
 * may not.
 */
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/wait.h>
#include "watch.h"

static DECLARE_WAIT_QUEUE_HEAD(kick_wq);
static bool kicked;

static void kick_fn(struct irq_work *w)
{
	WRITE_ONCE(kicked, true);
	wake_up(&kick_wq);
}

/* Static: the hooks can kick before the set-up and after the teardown. */
static struct irq_work kick_work = IRQ_WORK_INIT(kick_fn);

void dprof_watch_kick(void)
{
	irq_work_queue(&kick_work);
}

/* The collector's sleep: until a kick, a stop, or @timeout jiffies. */
void dprof_watch_wait(unsigned long timeout)
{
	wait_event_interruptible_timeout(kick_wq, READ_ONCE(kicked) ||
					 kthread_should_stop(), timeout);
	WRITE_ONCE(kicked, false);
}

/* No kick queued or running once this returns. */
void dprof_kick_sync(void)
{
	irq_work_sync(&kick_work);
}
