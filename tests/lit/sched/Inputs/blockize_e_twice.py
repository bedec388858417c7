b = sch.get_block("E")
sch.blockize([b, b])
