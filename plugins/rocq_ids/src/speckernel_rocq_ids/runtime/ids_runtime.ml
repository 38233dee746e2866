(* The replica runtime of an extracted IDS store (IDS §6).

   One executable, three roles:
   - [replica]: one process per replica, a TCP server on its host's address
     (loopback, or a test host's own) holding the store's replica state; a
     request whose guard is false waits in a pending list and is retried
     whenever the state changes (the world's step relation: a replica consumes
     any in-flight message whose guard holds);
   - [client]: one process per client worker, running the store's client
     methods over a seeded random workload; gets go to the worker's home
     replica, puts are broadcast to every replica and acknowledged by the home
     replica; every operation is timed with the monotonic clock;
   - [probe]: the whole world in one process with seeded message delivery,
     reporting the size of client and replica state after n and after 10 n
     operations (the bounded-state check) or that no client can proceed.

   Messages are OCaml values marshalled over TCP; all processes run this same
   executable, so the store's own types cross the wire unchanged. *)

external monotonic_ns : unit -> int = "ids_monotonic_ns"

(* The seven methods and the initial states, as Coq extraction names them. *)
module type STORE = sig
  type coq_CState
  type coq_RState
  type coq_GetReqPayload
  type coq_GetResPayload
  type coq_PutReqPayload
  val cInit : int -> coq_CState
  val rInit : int -> int -> coq_RState
  val getReq : int -> int -> coq_CState -> coq_GetReqPayload * coq_CState
  val getGuard : int -> coq_GetReqPayload -> int -> int -> coq_RState -> bool
  val get : int -> coq_GetReqPayload -> int -> int -> coq_RState ->
    (int * coq_GetResPayload) * coq_RState
  val getRes : int -> int -> coq_GetResPayload -> int -> coq_CState -> coq_CState
  val putReq : int -> int -> int -> coq_CState -> coq_PutReqPayload * coq_CState
  val putGuard : int -> int -> coq_PutReqPayload -> int -> int -> coq_RState -> bool
  val put : int -> int -> coq_PutReqPayload -> int -> int -> coq_RState -> coq_RState
end

module Make (S : STORE) = struct
  (* client, op id, key, payload *)
  type request =
    | GetReq of int * int * int * S.coq_GetReqPayload
    | PutReq of int * int * int * int * S.coq_PutReqPayload * bool
      (* client, op id, key, value, payload, whether to acknowledge *)

  type response =
    | GetRes of int * int * S.coq_GetResPayload  (* op id, value, payload *)
    | PutAck of int

  let send fd v =
    let b = Marshal.to_bytes v [Marshal.Closures] in
    let rec go o =
      if o < Bytes.length b then go (o + Unix.write fd b o (Bytes.length b - o)) in
    go 0

  (* Bytes received on one connection, cut into marshalled values. *)
  type reader = { fd : Unix.file_descr; mutable buf : Bytes.t; mutable len : int }

  let reader fd = { fd; buf = Bytes.create 65536; len = 0 }

  let fill r =
    if Bytes.length r.buf - r.len < 65536 then begin
      let bigger = Bytes.create (2 * Bytes.length r.buf + 65536) in
      Bytes.blit r.buf 0 bigger 0 r.len;
      r.buf <- bigger
    end;
    let n = Unix.read r.fd r.buf r.len 65536 in
    r.len <- r.len + n;
    n > 0

  let next r =
    if r.len < Marshal.header_size then None
    else
      let total = Marshal.total_size r.buf 0 in
      if r.len < total then None
      else begin
        let v = Marshal.from_bytes r.buf 0 in
        Bytes.blit r.buf total r.buf 0 (r.len - total);
        r.len <- r.len - total;
        Some v
      end

  (* Serve one request if its guard holds; the new state and the response. *)
  let serve id state = function
    | GetReq (c, u, k, p) ->
        if S.getGuard k p c id state then
          let (v, q), state' = S.get k p c id state in
          Some (state', Some (GetRes (u, v, q)))
        else None
    | PutReq (c, u, k, v, p, ack) ->
        if S.putGuard k v p c id state then
          Some (S.put k v p c id state, if ack then Some (PutAck u) else None)
        else None

  let write_file path text =
    let tmp = path ^ ".tmp" in
    let oc = open_out tmp in
    output_string oc text;
    close_out oc;
    Sys.rename tmp path

  (* This process's peak resident set (VmHWM, kB), read by the process itself: in a
     PID namespace the launcher cannot find it under /proc by the pid it knows. *)
  let peak_rss_kb () =
    let ic = open_in "/proc/self/status" in
    let rec find () =
      match input_line ic with
      | line when String.length line > 6 && String.sub line 0 6 = "VmHWM:" ->
          Scanf.sscanf line "VmHWM: %d" Fun.id
      | _ -> find ()
      | exception End_of_file -> -1 in
    let kb = find () in
    close_in ic;
    kb

  (* Serves until SIGTERM, then writes its peak RSS (kB) and the CPU seconds it
     used to [port_file].rss. *)
  let replica ~id ~v0 ~addr ~port_file =
    Sys.set_signal Sys.sigpipe Sys.Signal_ignore;
    Sys.set_signal Sys.sigterm (Sys.Signal_handle (fun _ ->
        let t = Unix.times () in
        write_file (port_file ^ ".rss") (Printf.sprintf "%d %.6f" (peak_rss_kb ())
                                           (t.Unix.tms_utime +. t.Unix.tms_stime));
        exit 0));
    let sock = Unix.socket Unix.PF_INET Unix.SOCK_STREAM 0 in
    Unix.setsockopt sock Unix.SO_REUSEADDR true;
    Unix.bind sock (Unix.ADDR_INET (addr, 0));
    Unix.listen sock 128;
    (match Unix.getsockname sock with
     | Unix.ADDR_INET (_, port) -> write_file port_file (string_of_int port)
     | _ -> failwith "no port");
    let state = ref (S.rInit id v0) in
    let pending = ref [] in  (* (connection, request), oldest first *)
    let conns = Hashtbl.create 16 in
    let reply fd = function
      | Some resp -> (try send fd resp with Unix.Unix_error _ -> ())
      | None -> () in
    let try_serve (fd, req) =
      match serve id !state req with
      | Some (state', resp) -> state := state'; reply fd resp; true
      | None -> false in
    let rec retry () =
      let progressed = ref false in
      pending := List.filter (fun m -> if try_serve m then (progressed := true; false)
                                       else true) !pending;
      if !progressed then retry () in
    let receive fd (req : request) =
      if try_serve (fd, req) then retry () else pending := !pending @ [ (fd, req) ] in
    while true do
      let fds = Hashtbl.fold (fun fd _ acc -> fd :: acc) conns [ sock ] in
      let ready, _, _ = Unix.select fds [] [] (-1.0) in
      List.iter (fun fd ->
          if fd = sock then begin
            let c, _ = Unix.accept sock in
            Unix.setsockopt c Unix.TCP_NODELAY true;
            Hashtbl.replace conns c (reader c)
          end else begin
            let r = Hashtbl.find conns fd in
            if fill r then begin
              let rec drain () =
                match next r with Some req -> receive fd req; drain () | None -> () in
              drain ()
            end else begin
              Hashtbl.remove conns fd;
              Unix.close fd
            end
          end) ready
    done

  let connect (addr, port) =
    let fd = Unix.socket Unix.PF_INET Unix.SOCK_STREAM 0 in
    Unix.connect fd (Unix.ADDR_INET (addr, port));
    Unix.setsockopt fd Unix.TCP_NODELAY true;
    fd

  (* A client worker: [ops] operations, a put with probability [put_rate], keys
     uniform in [0, keys); writes "start end" and one latency per line (ns).
     Once connected it prints "ready" and waits for a line on stdin, so that all
     workers start together. *)
  let client ~cid ~home ~endpoints ~ops ~put_rate ~keys ~seed ~out =
    let fds = Array.map connect endpoints in
    print_endline "ready";
    ignore (input_line stdin);
    let home_reader = reader fds.(home) in
    let rng = Random.State.make [| seed; cid |] in
    let rec await () =
      match (next home_reader : response option) with
      | Some resp -> resp
      | None -> if fill home_reader then await () else failwith "the home replica hung up" in
    let cs = ref (S.cInit cid) in
    let latencies = Array.make ops 0 in
    let started = monotonic_ns () in
    for i = 0 to ops - 1 do
      let k = Random.State.int rng keys in
      let is_put = Random.State.float rng 1.0 < put_rate in
      let v = Random.State.int rng 1_000_000 in
      let t0 = monotonic_ns () in
      if is_put then begin
        let p, cs' = S.putReq k v cid !cs in
        cs := cs';
        Array.iteri (fun r fd -> send fd (PutReq (cid, i, k, v, p, r = home))) fds;
        match await () with
        | PutAck u when u = i -> ()
        | _ -> failwith "unexpected response to a put"
      end else begin
        let p, cs' = S.getReq k cid !cs in
        cs := cs';
        send fds.(home) (GetReq (cid, i, k, p));
        match await () with
        | GetRes (u, v', q) when u = i -> cs := S.getRes k v' q cid !cs
        | _ -> failwith "unexpected response to a get"
      end;
      latencies.(i) <- monotonic_ns () - t0
    done;
    let finished = monotonic_ns () in
    let b = Buffer.create (ops * 8) in
    Buffer.add_string b (Printf.sprintf "%d %d\n" started finished);
    Array.iter (fun l -> Buffer.add_string b (string_of_int l); Buffer.add_char b '\n')
      latencies;
    write_file out (Buffer.contents b)

  (* The world in one process: clients 1..clients (home replica (c-1) mod replicas)
     issue [ops] operations each, then [factor * ops]; a random replica consumes
     its deliverable messages after every operation. *)
  let probe ~replicas ~clients ~keys ~ops ~factor ~put_rate ~seed =
    let rng = Random.State.make [| seed |] in
    let rs = Array.init replicas (fun r -> S.rInit r 0) in
    let inbox = Array.make replicas [] in      (* oldest first *)
    let incoming = Array.make replicas [] in   (* newest first *)
    let cs = Array.init clients (fun c -> S.cInit (c + 1)) in
    let issued = Array.make clients 0 in
    let blocked = Array.make clients false in
    let words v = Obj.reachable_words (Obj.repr v) in
    let deliver r =
      inbox.(r) <- inbox.(r) @ List.rev incoming.(r);
      incoming.(r) <- [];
      let progressed = ref false in
      let rec pass () =
        let again = ref false in
        inbox.(r) <- List.filter (fun req ->
            match serve r rs.(r) req with
            | None -> true
            | Some (state', resp) ->
                rs.(r) <- state';
                again := true;
                (match req, resp with
                 | GetReq (c, _, k, _), Some (GetRes (_, v, q)) ->
                     cs.(c - 1) <- S.getRes k v q c cs.(c - 1);
                     blocked.(c - 1) <- false
                 | _ -> ());
                false) inbox.(r);
        if !again then (progressed := true; pass ()) in
      pass ();
      !progressed in
    let issue c =
      let cid = c + 1 and i = issued.(c) in
      let k = Random.State.int rng keys in
      let v = Random.State.int rng 1_000_000 in
      if Random.State.float rng 1.0 < put_rate then begin
        let p, cs' = S.putReq k v cid cs.(c) in
        cs.(c) <- cs';
        for r = 0 to replicas - 1 do
          incoming.(r) <- PutReq (cid, i, k, v, p, false) :: incoming.(r)
        done
      end else begin
        let p, cs' = S.getReq k cid cs.(c) in
        cs.(c) <- cs';
        let home = c mod replicas in
        incoming.(home) <- GetReq (cid, i, k, p) :: incoming.(home);
        blocked.(c) <- true
      end;
      issued.(c) <- i + 1 in
    let run_to target =
      let rec loop () =
        let ready = List.filter (fun c -> not blocked.(c) && issued.(c) < target)
            (List.init clients Fun.id) in
        match ready with
        | [] ->
            let progressed = List.exists Fun.id (List.init replicas deliver) in
            if progressed then loop ()
            else if Array.exists Fun.id blocked then begin
              Printf.printf "stuck ops=%d blocked=%d\n%!" (Array.fold_left ( + ) 0 issued)
                (Array.fold_left (fun n b -> if b then n + 1 else n) 0 blocked);
              exit 3
            end
        | _ ->
            issue (List.nth ready (Random.State.int rng (List.length ready)));
            ignore (deliver (Random.State.int rng replicas));
            loop () in
      loop ();
      for r = 0 to replicas - 1 do ignore (deliver r) done;
      Printf.printf "checkpoint ops=%d replica_words=%d client_words=%d pending=%d\n%!"
        (Array.fold_left ( + ) 0 issued)
        (Array.fold_left (fun m s -> max m (words s)) 0 rs)
        (Array.fold_left (fun m s -> max m (words s)) 0 cs)
        (Array.fold_left (fun n l -> n + List.length l) 0 inbox) in
    run_to ops;
    run_to (factor * ops)

  let usage () =
    prerr_endline "usage: ids_store replica ID V0 ADDR PORT_FILE\n\
                   \       ids_store client CID HOME ADDR:PORT,... OPS PUT_RATE KEYS SEED OUT\n\
                   \       ids_store probe REPLICAS CLIENTS KEYS OPS FACTOR PUT_RATE SEED";
    exit 2

  let main () =
    let a = Sys.argv in
    let int i = int_of_string a.(i) in
    match Array.to_list a with
    | [ _; "replica"; _; _; addr; port_file ] ->
        replica ~id:(int 2) ~v0:(int 3) ~addr:(Unix.inet_addr_of_string addr) ~port_file
    | [ _; "client"; _; _; endpoints; _; rate; _; _; out ] ->
        let endpoint e = Scanf.sscanf e "%[^:]:%d" (fun a p -> (Unix.inet_addr_of_string a, p)) in
        let endpoints = Array.of_list (List.map endpoint (String.split_on_char ',' endpoints)) in
        client ~cid:(int 2) ~home:(int 3) ~endpoints ~ops:(int 5)
          ~put_rate:(float_of_string rate) ~keys:(int 7) ~seed:(int 8) ~out
    | [ _; "probe"; _; _; _; _; _; rate; _ ] ->
        probe ~replicas:(int 2) ~clients:(int 3) ~keys:(int 4) ~ops:(int 5) ~factor:(int 6)
          ~put_rate:(float_of_string rate) ~seed:(int 8)
    | _ -> usage ()
end
