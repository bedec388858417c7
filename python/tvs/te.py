"""tvs.te: TVM's tensor-expression builders are not implemented in Python yet;
TVS has the same computations as TVMScript's TE sugar (@te.prim_func text)."""


def __getattr__(name):
    raise NotImplementedError(f"tvs.te.{name} is not implemented by TVS's Python package yet; "
                              "write the computation as a T.prim_func (or the .tvs TE sugar) instead")
