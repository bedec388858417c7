sch.blockize([sch.get_block("outer"), sch.get_block("C")])
