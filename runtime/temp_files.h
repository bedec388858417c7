/* temp_files.h - temporary files removed when the process is interrupted.
 *
 * Outputs are built under temporary names and renamed into place; a SIGINT,
 * SIGTERM or SIGHUP in between must not leave those names behind.  A path is
 * registered while it may exist; the signal handler removes every registered
 * path, stops the helper process being waited for (the linker) and its
 * children, removes the paths again, then dies of the signal as it would have. */
#ifndef TVS_RUNTIME_TEMP_FILES_H
#define TVS_RUNTIME_TEMP_FILES_H

#include <sys/types.h>

/* Registers a copy of path (at most 64 at once; beyond that it is not
 * tracked).  Safe from several threads. */
void tvs_temp_register(const char *path);
/* Forgets path (after it was renamed into place or removed). */
void tvs_temp_forget(const char *path);
/* The process group of the helper being waited for (0: none): a signal kills
 * the group and waits for it before removing the temporaries it may write. */
void tvs_temp_set_child(pid_t pgid);
/* Installs the handler for SIGINT, SIGTERM and SIGHUP (signals already ignored,
 * as under nohup, stay ignored). */
void tvs_temp_install_signal_handlers(void);

#endif
