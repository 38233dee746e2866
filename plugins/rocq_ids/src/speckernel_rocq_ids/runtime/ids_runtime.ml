(* The replica runtime of an extracted IDS store (IDS §6).

   One executable, three roles:
   - [replica]: one process per replica, a TCP server on its host's address
     (loopback, or a test host's own) holding the store's replica state; a
     request whose guard is false waits in a pending list and is retried
     whenever the state changes (the world's step relation: a replica consumes
     any in-flight message whose guard holds). It says its port on stdout and
     serves until it is killed;
   - [client]: one process per client worker, running the store's client
     methods over a seeded random workload; gets go to the worker's home
     replica, puts are broadcast to every replica and acknowledged by the home
     replica; every operation is timed with the monotonic clock and, once all
     are done, written to stdout (a pipe only the launcher reads) with the value
     it put or got, for the launcher's history check;
   - [probe]: the whole world in one process with seeded message delivery over
     a given set of keys, reporting every operation (logical clock) and the
     size of client and replica state after n and after 10 n operations (the
     bounded-state check), or that no client can proceed.

   Every put writes a value no other put writes (client * 1_000_000 + its
   operation number + 1; never the initial value 0), so a history checker can
   tell which put a get returned.

   Messages are OCaml values marshalled over TCP; all processes run this same
   executable, so the store's own types cross the wire unchanged. Nothing here
   writes a file: results leave through stdout, resource use is read by the
   launcher from the kernel (wait4). *)

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

  (* The value the [i]-th operation of client [cid] puts: unique per put, never 0. *)
  let put_value cid i = cid * 1_000_000 + i + 1

  (* Serves until killed; says "port N" on stdout once it listens. *)
  let replica ~id ~v0 ~addr =
    Sys.set_signal Sys.sigpipe Sys.Signal_ignore;
    let sock = Unix.socket Unix.PF_INET Unix.SOCK_STREAM 0 in
    Unix.setsockopt sock Unix.SO_REUSEADDR true;
    Unix.bind sock (Unix.ADDR_INET (addr, 0));
    Unix.listen sock 128;
    (match Unix.getsockname sock with
     | Unix.ADDR_INET (_, port) -> Printf.printf "port %d\n%!" port
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
     uniform in [0, keys). Once connected it prints "ready" and waits for a line
     on stdin, so that all workers start together; at the end it prints one line
     per operation, "p|g KEY VALUE START END" (monotonic ns), then "done". *)
  let client ~cid ~home ~endpoints ~ops ~put_rate ~keys ~seed =
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
    let kinds = Bytes.make ops 'g' and ks = Array.make ops 0 and vs = Array.make ops 0 in
    let starts = Array.make ops 0 and ends = Array.make ops 0 in
    for i = 0 to ops - 1 do
      let k = Random.State.int rng keys in
      let is_put = Random.State.float rng 1.0 < put_rate in
      let t0 = monotonic_ns () in
      if is_put then begin
        let v = put_value cid i in
        let p, cs' = S.putReq k v cid !cs in
        cs := cs';
        Array.iteri (fun r fd -> send fd (PutReq (cid, i, k, v, p, r = home))) fds;
        (match await () with
         | PutAck u when u = i -> ()
         | _ -> failwith "unexpected response to a put");
        Bytes.set kinds i 'p';
        vs.(i) <- v
      end else begin
        let p, cs' = S.getReq k cid !cs in
        cs := cs';
        send fds.(home) (GetReq (cid, i, k, p));
        match await () with
        | GetRes (u, v', q) when u = i -> cs := S.getRes k v' q cid !cs; vs.(i) <- v'
        | _ -> failwith "unexpected response to a get"
      end;
      ks.(i) <- k;
      starts.(i) <- t0;
      ends.(i) <- monotonic_ns ()
    done;
    let b = Buffer.create (ops * 40) in
    for i = 0 to ops - 1 do
      Buffer.add_string b (Printf.sprintf "%c %d %d %d %d\n" (Bytes.get kinds i) ks.(i)
                             vs.(i) starts.(i) ends.(i))
    done;
    Buffer.add_string b "done\n";
    print_string (Buffer.contents b);
    flush stdout

  (* The world in one process: clients 1..clients (home replica (c-1) mod replicas)
     issue [ops] operations each over [keys], then [factor * ops]; a random
     replica consumes its deliverable messages after every operation. Each
     operation is printed as "op C I p|g KEY VALUE START END" on a logical clock
     (a put's start and end are its issue; a get ends when its answer is taken). *)
  let probe ~replicas ~clients ~keys ~ops ~factor ~put_rate ~seed =
    let rng = Random.State.make [| seed |] in
    let clock = ref 0 in
    let tick () = incr clock; !clock in
    let get_started = Array.make clients 0 in
    let nkeys = Array.length keys in
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
                 | GetReq (c, u, k, _), Some (GetRes (_, v, q)) ->
                     cs.(c - 1) <- S.getRes k v q c cs.(c - 1);
                     blocked.(c - 1) <- false;
                     Printf.printf "op %d %d g %d %d %d %d\n" c u k v get_started.(c - 1)
                       (tick ())
                 | _ -> ());
                false) inbox.(r);
        if !again then (progressed := true; pass ()) in
      pass ();
      !progressed in
    let issue c =
      let cid = c + 1 and i = issued.(c) in
      let k = keys.(Random.State.int rng nkeys) in
      if Random.State.float rng 1.0 < put_rate then begin
        let v = put_value cid i in
        let p, cs' = S.putReq k v cid cs.(c) in
        cs.(c) <- cs';
        let t = tick () in
        Printf.printf "op %d %d p %d %d %d %d\n" cid i k v t t;
        for r = 0 to replicas - 1 do
          incoming.(r) <- PutReq (cid, i, k, v, p, false) :: incoming.(r)
        done
      end else begin
        let p, cs' = S.getReq k cid cs.(c) in
        cs.(c) <- cs';
        let home = c mod replicas in
        incoming.(home) <- GetReq (cid, i, k, p) :: incoming.(home);
        get_started.(c) <- tick ();
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
    prerr_endline "usage: ids_store replica ID V0 ADDR\n\
                   \       ids_store client CID HOME ADDR:PORT,... OPS PUT_RATE KEYS SEED\n\
                   \       ids_store probe REPLICAS CLIENTS KEY,KEY,... OPS FACTOR PUT_RATE SEED";
    exit 2

  let main () =
    let a = Sys.argv in
    let int i = int_of_string a.(i) in
    match Array.to_list a with
    | [ _; "replica"; _; _; addr ] ->
        replica ~id:(int 2) ~v0:(int 3) ~addr:(Unix.inet_addr_of_string addr)
    | [ _; "client"; _; _; endpoints; _; rate; _; _ ] ->
        let endpoint e = Scanf.sscanf e "%[^:]:%d" (fun a p -> (Unix.inet_addr_of_string a, p)) in
        let endpoints = Array.of_list (List.map endpoint (String.split_on_char ',' endpoints)) in
        client ~cid:(int 2) ~home:(int 3) ~endpoints ~ops:(int 5)
          ~put_rate:(float_of_string rate) ~keys:(int 7) ~seed:(int 8)
    | [ _; "probe"; _; _; keys; _; _; rate; _ ] ->
        let keys = Array.of_list (List.map int_of_string (String.split_on_char ',' keys)) in
        probe ~replicas:(int 2) ~clients:(int 3) ~keys ~ops:(int 5) ~factor:(int 6)
          ~put_rate:(float_of_string rate) ~seed:(int 8)
    | _ -> usage ()
end
