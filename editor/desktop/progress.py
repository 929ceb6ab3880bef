"""The status bar's progress widget: what runs in the background, how far, and Cancel.

:class:`ProgressWidget` follows a :class:`~.jobs.JobRunner`: while a job runs it shows
the job's title and what it is doing, a bar (busy when the fraction is not known) and a
*Cancel* button; with several jobs it shows the newest and how many others run, and
Cancel stops the one shown.  It hides itself when nothing runs.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from .jobs import Job, JobRunner

__all__ = ["ProgressWidget"]

#: The bar's resolution (a QProgressBar counts in integers).
STEPS = 1000


class ProgressWidget(QtWidgets.QWidget):
    """Title, bar and Cancel of the newest running job (see the module docstring)."""

    def __init__(self, runner: JobRunner, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.job: Job | None = None
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.label = QtWidgets.QLabel(self)
        self.label.setMinimumWidth(self.label.fontMetrics().horizontalAdvance("M" * 14))
        self.label.setMaximumWidth(self.label.fontMetrics().horizontalAdvance("M" * 32))
        self.bar = QtWidgets.QProgressBar(self)
        self.bar.setRange(0, STEPS)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(160)
        self.bar.setMaximumHeight(self.label.sizeHint().height())
        self.cancel_button = QtWidgets.QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop this job; what is open stays as it was")
        self.cancel_button.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)  # (keys stay put)
        self.cancel_button.clicked.connect(self.cancel)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        runner.started.connect(self._on_started)
        runner.ended.connect(self._on_ended)
        self.hide()

    def cancel(self) -> None:
        """Cancel the job shown."""
        if self.job is not None:
            self.job.cancel()

    # -- following the runner ---------------------------------------------------------
    def _on_started(self, job: Job) -> None:
        job.progressed.connect(self._on_progress)
        self._show(job)

    def _on_ended(self, _job: Job) -> None:
        running = self.runner.jobs
        self._show(running[-1] if running else None)

    def _on_progress(self, _fraction, _text: str) -> None:
        self._update()

    def _show(self, job: Job | None) -> None:
        self.job = job
        if job is None:
            self.hide()
            return
        self._update()
        self.show()

    def _update(self) -> None:
        job = self.job
        if job is None:
            return
        others = len(self.runner.jobs) - 1
        text = job.title + (f": {job.text}" if job.text else "")
        if others > 0:
            text += f" (+{others} more)"
        metrics = self.label.fontMetrics()
        self.label.setText(metrics.elidedText(text, QtCore.Qt.TextElideMode.ElideMiddle,
                                              self.label.maximumWidth()))
        self.label.setToolTip(text)
        if job.fraction is None:
            self.bar.setRange(0, 0)          # busy: how far is not known
        else:
            self.bar.setRange(0, STEPS)
            self.bar.setValue(int(round(job.fraction * STEPS)))
        self.cancel_button.setEnabled(job.running and not job.cancel_requested)
