import gc

from snapframe.core.events import EventEmitter


def test_emit_order_errors_and_weak_methods():
    seen = []
    emitter = EventEmitter()

    class View:
        def on(self, e):
            seen.append(("view", e))

    def broken(e):
        raise ValueError("a view bug")

    view = View()
    emitter.connect(view.on)
    emitter.connect(broken)
    emitter.connect(lambda e: seen.append(("fn", e)))
    emitter.emit(1)
    assert seen == [("view", 1), ("fn", 1)]  # the broken callback did not stop the others
    del view
    gc.collect()
    emitter.emit(2)
    assert seen[-1] == ("fn", 2) and ("view", 2) not in seen
    with emitter.blocked():
        emitter.emit(3)
    assert ("fn", 3) not in seen
