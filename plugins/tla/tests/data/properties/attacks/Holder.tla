---- MODULE Holder ----
CONSTANT Fair
Zero == Fair
====
