---- MODULE Watcher ----
EXTENDS Naturals
VARIABLE y
AlwaysPos == [](y >= 0)
====
