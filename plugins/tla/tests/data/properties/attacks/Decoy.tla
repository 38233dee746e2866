---- MODULE Decoy ----
CONSTANT Fair
====
