// Command rwlock: a writer-preferring reader-writer lock built as a monitor (sync.Mutex +
// sync.Cond), exercised by goroutines and instrumented to write an NDJSON trace of its actions.
//
// Usage: rwlock SEED OUT.ndjson [GOROUTINES=3] [ROUNDS=3]
//
// Protocol:
//   - RLock: wait while a writer holds the lock or any writer is waiting (writer preference),
//     then readers++.
//   - Lock: on the first attempt count itself in waitingWriters; wait while a writer holds the
//     lock or readers > 0; then waitingWriters--, writer = true.
//   - RUnlock: readers--; the last reader out broadcasts.
//   - Unlock: writer = false; broadcast.
//
// Every action happens while holding the monitor mutex, and its trace line is written before the
// mutex is released, so the order of lines is the order of the actions. cond.Wait() releases the
// mutex only after the waiter is registered, so "wait" is atomic with the failed check. A
// broadcast makes every waiter runnable (the trace lists them in "woken"); each re-checks its
// condition later, under the mutex, and logs either an Acquire* or another *Wait event with
// "retry": true. Returning from cond.Wait is not logged: it is part of that re-check.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

type RWLock struct {
	mu             sync.Mutex
	cond           *sync.Cond
	readers        int
	writer         bool
	waitingWriters int

	// instrumentation only: which goroutines are blocked in cond.Wait
	waiters map[string]bool
}

func NewRWLock() *RWLock {
	l := &RWLock{waiters: map[string]bool{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// ---------------------------------------------------------------- trace instrumentation
var traceOut *os.File

func emit(rec map[string]any) {
	b, err := json.Marshal(rec) // keys are sorted: stable output
	if err != nil {
		panic(err)
	}
	traceOut.Write(append(b, '\n'))
}

func (l *RWLock) wait(me string) {
	l.waiters[me] = true
	l.cond.Wait()
}

// broadcast wakes every waiter and returns their names (for the trace).
func (l *RWLock) broadcast() []string {
	woken := []string{}
	for name := range l.waiters {
		woken = append(woken, name)
	}
	sort.Strings(woken)
	l.waiters = map[string]bool{}
	l.cond.Broadcast()
	return woken
}

// ---------------------------------------------------------------- the lock
func (l *RWLock) RLock(me string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	retry := false
	for l.writer || l.waitingWriters > 0 {
		emit(map[string]any{"event": "ReadWait", "actor": me, "state": "r_wait", "retry": retry})
		l.wait(me)
		retry = true
	}
	l.readers++
	emit(map[string]any{"event": "AcquireRead", "actor": me, "readers": l.readers, "state": "reading", "retry": retry})
}

func (l *RWLock) RUnlock(me string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.readers--
	woken := []string{}
	if l.readers == 0 {
		woken = l.broadcast()
	}
	emit(map[string]any{"event": "ReleaseRead", "actor": me, "readers": l.readers, "state": "idle", "woken": woken})
}

func (l *RWLock) Lock(me string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	retry := false
	if l.writer || l.readers > 0 {
		l.waitingWriters++
		for l.writer || l.readers > 0 {
			emit(map[string]any{"event": "WriteWait", "actor": me, "state": "w_wait", "retry": retry,
				"waiting_writers": l.waitingWriters})
			l.wait(me)
			retry = true
		}
		l.waitingWriters--
	}
	l.writer = true
	emit(map[string]any{"event": "AcquireWrite", "actor": me, "writer": true, "state": "writing", "retry": retry,
		"waiting_writers": l.waitingWriters})
}

func (l *RWLock) Unlock(me string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writer = false
	woken := l.broadcast()
	emit(map[string]any{"event": "ReleaseWrite", "actor": me, "writer": false, "state": "idle", "woken": woken})
}

// ---------------------------------------------------------------- workload
func pause(r *rand.Rand) {
	switch r.IntN(4) {
	case 0:
		time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond)
	case 1:
		time.Sleep(0)
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintf(os.Stderr, "usage: %s SEED OUT.ndjson [GOROUTINES] [ROUNDS]\n", os.Args[0])
		os.Exit(2)
	}
	seed, err := strconv.ParseUint(os.Args[1], 10, 64)
	if err != nil {
		panic(err)
	}
	n, rounds := 3, 3
	if len(os.Args) > 3 {
		n, _ = strconv.Atoi(os.Args[3])
	}
	if len(os.Args) > 4 {
		rounds, _ = strconv.Atoi(os.Args[4])
	}
	if n < 1 || n > 16 || rounds < 0 || rounds > 50 {
		fmt.Fprintln(os.Stderr, "GOROUTINES 1..16, ROUNDS 0..50")
		os.Exit(2)
	}
	traceOut, err = os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	defer traceOut.Close()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("g%d", i+1)
	}
	emit(map[string]any{"event": "Init", "actor": "main", "threads": names, "readers": 0, "writer": false,
		"waiting_writers": 0})

	l := NewRWLock()
	shared := 0 // written under the write lock, read under the read lock
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func(i int, me string) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(i)+1))
			for k := 0; k < rounds; k++ {
				pause(r)
				if r.IntN(5) < 2 {
					l.Lock(me)
					v := shared
					pause(r)
					shared = v + 1
					l.Unlock(me)
				} else {
					l.RLock(me)
					_ = shared
					pause(r)
					l.RUnlock(me)
				}
			}
		}(i, name)
	}
	wg.Wait()
}
