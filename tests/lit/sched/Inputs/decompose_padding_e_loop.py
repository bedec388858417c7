pad = sch.get_block("pad_temp")
sch.decompose_padding(pad, sch.get_loops("tensor")[0])
