sch.transform_l("write", 0), lambdadex"(1 ))) i, j: (i Ø/ 2, j))
