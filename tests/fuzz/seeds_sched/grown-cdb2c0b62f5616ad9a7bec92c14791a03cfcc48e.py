sch.annotate_buffer_access("B", 0, "write", lambda vi: (vi, vsch.transform_layout("B", ("write", 0), lambda i: (i,)lsch.transfo…rm_block_layiut("C", lambdai v0, vock_la1, v2: (v2, v1, v0)_write("C_ax21", 0da v0)), v1
, "l
ocal")
