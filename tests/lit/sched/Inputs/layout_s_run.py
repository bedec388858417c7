# Padded intermediate, remapped consumer block, separators on the output: the
# compiled function must compute what the unscheduled one does.
sch.transform_layout("B", ("write", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0.0)
sch.transform_block_layout("C", lambda i, j: (j, i))
sch.set_axis_separator("C", "C", [1])
