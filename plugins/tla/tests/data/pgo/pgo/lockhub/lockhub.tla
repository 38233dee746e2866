---------------------------- MODULE lockhub ----------------------------
(* A hub that grants each client's request, in the layout of a model compiled by PGo: the     *)
(* Modular PlusCal algorithm, its PlusCal translation, then the TLA+ translation. Written for  *)
(* the tests of the plugin's TraceLink conformance.                                             *)
EXTENDS Naturals, Sequences, TLC

CONSTANT N

(********************

--mpcal lockhub {
    define {
        HubID == 0
        ClientSet == 1..N
    }

    mapping macro Mailbox {
        read {
            await Len($variable) > 0;
            with (m = Head($variable)) {
                $variable := Tail($variable);
                yield m;
            };
        }

        write {
            yield Append($variable, $value);
        }
    }

    \* the hub takes requests in arrival order and grants each one
    archetype AHub(ref box[_], ref owner)
    variables req, served = 0;
    {
    hubLoop:
        while (TRUE) {
        hubRecv:
            req := box[self];
        hubGrant:
            owner := req;
            served := served + 1;
            box[req] := "grant";
        };
    }

    archetype AClient(ref box[_], ref held[_])
    variable req;
    {
    ask:
        req := self;
        box[HubID] := req;
    wait:
        with (g = box[self]) {
            held[self] := TRUE;
        };
    release:
        held[self] := FALSE;
    }

    variables box = [n \in 0..N |-> <<>>], owner = 0, held = [n \in 1..N |-> FALSE];

    process (TheHub = HubID) == instance AHub(ref box[_], ref owner)
        mapping box[_] via Mailbox;

    fair process (Client \in ClientSet) == instance AClient(ref box[_], ref held[_])
        mapping box[_] via Mailbox;
}

\* BEGIN PLUSCAL TRANSLATION
--algorithm lockhub {
  variables box = [n \in (0) .. (N) |-> <<>>]; owner = 0; held = [n \in (1) .. (N) |-> FALSE];
  define{
    HubID == 0
    ClientSet == (1) .. (N)
  }

  process (TheHub = HubID)
    variables req; served = 0;
  {
    hubLoop:
      if (TRUE) {
        goto hubRecv;
      } else {
        goto Done;
      };
    hubRecv:
      await (Len((box)[self])) > (0);
      with (m0 = Head((box)[self])) {
        box := [box EXCEPT ![self] = Tail((box)[self])];
        with (yielded_box0 = m0) {
          req := yielded_box0;
          goto hubGrant;
        };
      };
    hubGrant:
      owner := req;
      served := (served) + (1);
      with (value0 = "grant") {
        box := [box EXCEPT ![req] = Append((box)[req], value0)];
        goto hubLoop;
      };
  }

  fair process (Client \in ClientSet)
    variables req0;
  {
    ask:
      req0 := self;
      with (value1 = req0) {
        box := [box EXCEPT ![HubID] = Append((box)[HubID], value1)];
        goto wait;
      };
    wait:
      await (Len((box)[self])) > (0);
      with (m1 = Head((box)[self])) {
        box := [box EXCEPT ![self] = Tail((box)[self])];
        with (g = m1) {
          held := [held EXCEPT ![self] = TRUE];
          goto release;
        };
      };
    release:
      held := [held EXCEPT ![self] = FALSE];
      goto Done;
  }
}
\* END PLUSCAL TRANSLATION

********************)
\* BEGIN TRANSLATION
CONSTANT defaultInitValue
VARIABLES pc, box, owner, held

(* define statement *)
HubID == 0
ClientSet == (1) .. (N)

VARIABLES req, served, req0

vars == << pc, box, owner, held, req, served, req0 >>

ProcSet == {HubID} \cup (ClientSet)

Init == (* Global variables *)
        /\ box = [n \in (0) .. (N) |-> <<>>]
        /\ owner = 0
        /\ held = [n \in (1) .. (N) |-> FALSE]
        (* Process TheHub *)
        /\ req = defaultInitValue
        /\ served = 0
        (* Process Client *)
        /\ req0 = [self \in ClientSet |-> defaultInitValue]
        /\ pc = [self \in ProcSet |-> CASE self = HubID -> "hubLoop"
                                        [] self \in ClientSet -> "ask"]

hubLoop == /\ pc[HubID] = "hubLoop"
           /\ IF TRUE
                 THEN /\ pc' = [pc EXCEPT ![HubID] = "hubRecv"]
                 ELSE /\ pc' = [pc EXCEPT ![HubID] = "Done"]
           /\ UNCHANGED << box, owner, held, req, served, req0 >>

hubRecv == /\ pc[HubID] = "hubRecv"
           /\ (Len((box)[HubID])) > (0)
           /\ LET m0 == Head((box)[HubID]) IN
                /\ box' = [box EXCEPT ![HubID] = Tail((box)[HubID])]
                /\ LET yielded_box0 == m0 IN
                     /\ req' = yielded_box0
                     /\ pc' = [pc EXCEPT ![HubID] = "hubGrant"]
           /\ UNCHANGED << owner, held, served, req0 >>

hubGrant == /\ pc[HubID] = "hubGrant"
            /\ owner' = req
            /\ served' = (served) + (1)
            /\ LET value0 == "grant" IN
                 /\ box' = [box EXCEPT ![req] = Append((box)[req], value0)]
                 /\ pc' = [pc EXCEPT ![HubID] = "hubLoop"]
            /\ UNCHANGED << held, req, req0 >>

TheHub == hubLoop \/ hubRecv \/ hubGrant

ask(self) == /\ pc[self] = "ask"
             /\ req0' = [req0 EXCEPT ![self] = self]
             /\ LET value1 == req0'[self] IN
                  /\ box' = [box EXCEPT ![HubID] = Append((box)[HubID], value1)]
                  /\ pc' = [pc EXCEPT ![self] = "wait"]
             /\ UNCHANGED << owner, held, req, served >>

wait(self) == /\ pc[self] = "wait"
              /\ (Len((box)[self])) > (0)
              /\ LET m1 == Head((box)[self]) IN
                   /\ box' = [box EXCEPT ![self] = Tail((box)[self])]
                   /\ LET g == m1 IN
                        /\ held' = [held EXCEPT ![self] = TRUE]
                        /\ pc' = [pc EXCEPT ![self] = "release"]
              /\ UNCHANGED << owner, req, served, req0 >>

release(self) == /\ pc[self] = "release"
                 /\ held' = [held EXCEPT ![self] = FALSE]
                 /\ pc' = [pc EXCEPT ![self] = "Done"]
                 /\ UNCHANGED << box, owner, req, served, req0 >>

Client(self) == ask(self) \/ wait(self) \/ release(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == TheHub
           \/ (\E self \in ClientSet: Client(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in ClientSet : WF_vars(Client(self))

\* END TRANSLATION

=============================================================================
