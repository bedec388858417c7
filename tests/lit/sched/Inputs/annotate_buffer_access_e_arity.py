sch.annotate_buffer_access("B", 0, "write", lambda vi: (vi, vi))
