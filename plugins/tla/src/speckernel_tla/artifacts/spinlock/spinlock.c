/*
 * spinlock.c - a test-and-test-and-set spinlock (C11 atomics) exercised by POSIX threads,
 * instrumented to write an NDJSON trace of its actions.
 *
 * Usage: spinlock SEED OUT.ndjson [THREADS=3] [ROUNDS=4]
 *
 * Each worker thread runs ROUNDS rounds. In each round it picks, at random, the blocking
 * spin_lock() or the non-blocking spin_try_lock(); when it gets the lock it runs a short critical
 * section (increments a shared counter) and calls spin_unlock(). Random sleeps and sched_yield()
 * calls between and inside the steps randomise the schedule; the seed comes from argv.
 *
 * Trace (one JSON object per line), written by the thread that performs the action:
 *   {"event":"Init","actor":"main","threads":["t1",..],"locked":false}
 *   {"event":"LockRequest","actor":"t1","state":"spinning","call":"lock"}      spin_lock() entered
 *   {"event":"Acquire","actor":"t1","locked":true,"state":"locked"}             CAS succeeded in spin_lock()
 *   {"event":"TryLockSuccess","actor":"t2","locked":true,"state":"locked","call":"try_lock"}
 *   {"event":"TryLockFail","actor":"t2","locked":true,"state":"idle","call":"none"}
 *   {"event":"Unlock","actor":"t1","locked":false,"state":"idle","call":"none"}
 * A failed CAS inside spin_lock() changes nothing and is not logged. Each logged action and its
 * log line are done under one trace mutex, so the order of lines is the order of the actions.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    atomic_bool locked;
} spinlock_t;

/* ---- trace instrumentation ---- */
static pthread_mutex_t trace_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_out;
#define TRACE_BEGIN() pthread_mutex_lock(&trace_mu)
#define TRACE_END() (fflush(trace_out), pthread_mutex_unlock(&trace_mu))

static __thread const char *self_name = "main";
static __thread unsigned int rng;

static void random_pause(void) {
    unsigned r = rand_r(&rng) % 4;
    if (r == 0) {
        sched_yield();
    } else if (r == 1) {
        struct timespec ts = {0, (long)(rand_r(&rng) % 200) * 1000L};
        nanosleep(&ts, NULL);
    }
}

/* ---- the spinlock ---- */
static bool cas_acquire(spinlock_t *l) {
    bool expected = false;
    return atomic_compare_exchange_strong_explicit(&l->locked, &expected, true,
                                                   memory_order_acquire, memory_order_relaxed);
}

void spin_lock(spinlock_t *l) {
    TRACE_BEGIN();
    fprintf(trace_out, "{\"event\":\"LockRequest\",\"actor\":\"%s\",\"state\":\"spinning\",\"call\":\"lock\"}\n",
            self_name);
    TRACE_END();
    for (;;) {
        TRACE_BEGIN();
        bool ok = cas_acquire(l);
        if (ok)
            fprintf(trace_out, "{\"event\":\"Acquire\",\"actor\":\"%s\",\"locked\":true,\"state\":\"locked\"}\n",
                    self_name);
        TRACE_END();
        if (ok)
            return;
        /* test-and-test-and-set: spin on a plain load until the lock looks free */
        while (atomic_load_explicit(&l->locked, memory_order_relaxed))
            sched_yield();
    }
}

bool spin_try_lock(spinlock_t *l) {
    TRACE_BEGIN();
    bool ok = cas_acquire(l);
    if (ok)
        fprintf(trace_out,
                "{\"event\":\"TryLockSuccess\",\"actor\":\"%s\",\"locked\":true,\"state\":\"locked\",\"call\":\"try_lock\"}\n",
                self_name);
    else
        fprintf(trace_out,
                "{\"event\":\"TryLockFail\",\"actor\":\"%s\",\"locked\":true,\"state\":\"idle\",\"call\":\"none\"}\n",
                self_name);
    TRACE_END();
    return ok;
}

void spin_unlock(spinlock_t *l) {
    TRACE_BEGIN();
    atomic_store_explicit(&l->locked, false, memory_order_release);
    fprintf(trace_out, "{\"event\":\"Unlock\",\"actor\":\"%s\",\"locked\":false,\"state\":\"idle\",\"call\":\"none\"}\n",
            self_name);
    TRACE_END();
}

/* ---- workload ---- */
static spinlock_t the_lock;
static long counter;          /* protected by the_lock */
static atomic_long acquisitions;
static int rounds;
static unsigned base_seed;

struct worker { char name[16]; int idx; };

static void *worker_main(void *arg) {
    struct worker *w = arg;
    self_name = w->name;
    rng = base_seed * 7919u + (unsigned)w->idx * 104729u + 1u;
    for (int r = 0; r < rounds; r++) {
        random_pause();
        bool got;
        if (rand_r(&rng) % 3 == 0) {
            got = spin_try_lock(&the_lock);
        } else {
            spin_lock(&the_lock);
            got = true;
        }
        if (got) {
            long c = counter;   /* critical section: a non-atomic read-modify-write */
            random_pause();
            counter = c + 1;
            atomic_fetch_add(&acquisitions, 1);
            spin_unlock(&the_lock);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SEED OUT.ndjson [THREADS] [ROUNDS]\n", argv[0]);
        return 2;
    }
    base_seed = (unsigned)strtoul(argv[1], NULL, 10);
    int nthreads = argc > 3 ? atoi(argv[3]) : 3;
    rounds = argc > 4 ? atoi(argv[4]) : 4;
    if (nthreads < 1 || nthreads > 16 || rounds < 0 || rounds > 50) {
        fprintf(stderr, "THREADS must be 1..16 and ROUNDS 0..50\n");
        return 2;
    }
    trace_out = fopen(argv[2], "w");
    if (!trace_out) {
        perror(argv[2]);
        return 1;
    }
    atomic_init(&the_lock.locked, false);
    fprintf(trace_out, "{\"event\":\"Init\",\"actor\":\"main\",\"threads\":[");
    for (int i = 0; i < nthreads; i++)
        fprintf(trace_out, "%s\"t%d\"", i ? "," : "", i + 1);
    fprintf(trace_out, "],\"locked\":false}\n");

    pthread_t tids[16];
    struct worker ws[16];
    for (int i = 0; i < nthreads; i++) {
        snprintf(ws[i].name, sizeof ws[i].name, "t%d", i + 1);
        ws[i].idx = i;
        pthread_create(&tids[i], NULL, worker_main, &ws[i]);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(tids[i], NULL);
    fclose(trace_out);
    if (counter != atomic_load(&acquisitions)) {
        fprintf(stderr, "mutual exclusion broken: counter=%ld acquisitions=%ld\n", counter,
                atomic_load(&acquisitions));
        return 1;
    }
    return 0;
}
