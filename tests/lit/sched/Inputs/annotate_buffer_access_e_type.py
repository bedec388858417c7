sch.annotate_buffer_access("B", 0, "readwrite", lambda vi, vj: (vi, vj))
