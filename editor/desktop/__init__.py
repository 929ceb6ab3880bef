"""Desktop services of the editor: what makes it behave like a desktop application.

Autosave and crash recovery (:mod:`.autosave`, :mod:`.recovery`), reloading files changed
on disk (:mod:`.file_watch`), user preferences (:mod:`.settings`, :mod:`.preferences_dialog`)
and background jobs with progress (:mod:`.jobs`, :mod:`.progress`).  The main window
installs them with :func:`snapframe.editor.desktop.services.install`.
"""
