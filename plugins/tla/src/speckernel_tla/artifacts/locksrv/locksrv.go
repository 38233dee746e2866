// Command locksrv: a lock server over TCP on 127.0.0.1 with a FIFO queue of waiting clients,
// plus client goroutines (one TCP connection each), instrumented to write an NDJSON trace.
//
// Usage: locksrv SEED OUT.ndjson [CLIENTS=3] [ROUNDS=2]
//
// Wire protocol (one text line per message):
//
//	client -> server  "ACQUIRE <name>"   ask for the lock
//	client -> server  "RELEASE <name>"   give the lock back (no reply)
//	server -> client  "GRANT"            the client now holds the lock
//
// The server grants at once when the lock is free, otherwise appends the client to a FIFO queue;
// on RELEASE it passes the lock to the head of the queue (sending it GRANT) or marks it free.
//
// Trace: every process step is logged under one trace mutex. Send events are logged before the
// bytes are written, receive events after the line has been read, and the server logs its whole
// reaction (state change + grant it is about to send) under its own mutex, so the order of lines
// is a linearisation that respects causality (every receive comes after its send).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ---------------------------------------------------------------- trace instrumentation
var (
	traceMu  sync.Mutex
	traceOut *os.File
)

func emit(rec map[string]any) {
	b, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	traceOut.Write(append(b, '\n'))
}

// ---------------------------------------------------------------- server
type Server struct {
	mu     sync.Mutex
	holder string   // "none" when free
	queue  []string // waiting clients, head first
	conns  map[string]net.Conn
}

func (s *Server) queueCopy() []string { return append([]string{}, s.queue...) }

func (s *Server) grant(to string) {
	fmt.Fprintf(s.conns[to], "GRANT\n")
}

func (s *Server) handle(conn net.Conn) {
	defer conn.Close()
	rd := bufio.NewScanner(conn)
	for rd.Scan() {
		f := strings.Fields(rd.Text())
		if len(f) != 2 {
			continue
		}
		cmd, who := f[0], f[1]
		s.mu.Lock()
		s.conns[who] = conn
		switch cmd {
		case "ACQUIRE":
			granted := "none"
			if s.holder == "none" {
				s.holder = who
				granted = who
			} else {
				s.queue = append(s.queue, who)
			}
			emit(map[string]any{"event": "RecvAcquire", "actor": "server", "client": who,
				"holder": s.holder, "queue": s.queueCopy(), "granted": granted})
			if granted != "none" {
				s.grant(granted)
			}
		case "RELEASE":
			granted := "none"
			if len(s.queue) > 0 {
				granted = s.queue[0]
				s.queue = s.queue[1:]
			}
			s.holder = granted
			emit(map[string]any{"event": "RecvRelease", "actor": "server", "client": who,
				"holder": s.holder, "queue": s.queueCopy(), "granted": granted})
			if granted != "none" {
				s.grant(granted)
			}
		}
		s.mu.Unlock()
	}
}

// ---------------------------------------------------------------- client
var inCS atomic.Int32 // real mutual-exclusion check across clients

func pause(r *rand.Rand) {
	switch r.IntN(3) {
	case 0:
		time.Sleep(time.Duration(r.IntN(500)) * time.Microsecond)
	case 1:
		time.Sleep(0)
	}
}

func client(addr, me string, seed uint64, idx, rounds int, errs chan<- error) {
	r := rand.New(rand.NewPCG(seed, uint64(idx)+1))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		errs <- err
		return
	}
	defer conn.Close()
	rd := bufio.NewScanner(conn)
	for k := 0; k < rounds; k++ {
		pause(r)
		emit(map[string]any{"event": "SendAcquire", "actor": me, "state": "waiting"})
		fmt.Fprintf(conn, "ACQUIRE %s\n", me)
		if !rd.Scan() || rd.Text() != "GRANT" {
			errs <- fmt.Errorf("%s: expected GRANT, got %q (%v)", me, rd.Text(), rd.Err())
			return
		}
		emit(map[string]any{"event": "RecvGrant", "actor": me, "state": "holding"})
		if n := inCS.Add(1); n != 1 {
			errs <- fmt.Errorf("mutual exclusion broken: %d holders", n)
		}
		pause(r)
		inCS.Add(-1)
		emit(map[string]any{"event": "SendRelease", "actor": me, "state": "idle"})
		fmt.Fprintf(conn, "RELEASE %s\n", me)
	}
	errs <- nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintf(os.Stderr, "usage: %s SEED OUT.ndjson [CLIENTS] [ROUNDS]\n", os.Args[0])
		os.Exit(2)
	}
	seed, err := strconv.ParseUint(os.Args[1], 10, 64)
	if err != nil {
		panic(err)
	}
	n, rounds := 3, 2
	if len(os.Args) > 3 {
		n, _ = strconv.Atoi(os.Args[3])
	}
	if len(os.Args) > 4 {
		rounds, _ = strconv.Atoi(os.Args[4])
	}
	if n < 1 || n > 16 || rounds < 0 || rounds > 50 {
		fmt.Fprintln(os.Stderr, "CLIENTS 1..16, ROUNDS 0..50")
		os.Exit(2)
	}
	traceOut, err = os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	defer traceOut.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	srv := &Server{holder: "none", queue: []string{}, conns: map[string]net.Conn{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go srv.handle(c)
		}
	}()

	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("c%d", i+1)
	}
	emit(map[string]any{"event": "Init", "actor": "main", "clients": names, "holder": "none", "queue": []string{}})

	errs := make(chan error, n+1)
	for i, me := range names {
		go client(ln.Addr().String(), me, seed, i, rounds, errs)
	}
	deadline := time.After(15 * time.Second)
	for range names {
		select {
		case e := <-errs:
			if e != nil {
				fmt.Fprintln(os.Stderr, e)
				os.Exit(1)
			}
		case <-deadline:
			fmt.Fprintln(os.Stderr, "timeout")
			os.Exit(1)
		}
	}
	// wait until the server has processed the last RELEASE messages
	for i := 0; i < 200; i++ {
		srv.mu.Lock()
		done := srv.holder == "none"
		srv.mu.Unlock()
		if done {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}
