// libc's own definitions of what Trail interposes (pthread_create in threads.c; posix_spawn, the exec family,
// system and popen in trace_context.c and exec_handoff.c), found once by a constructor: dlsym is not
// async-signal-safe, and exec may run in a vfork child or a signal handler.
//
// A dynamic link finds them with dlsym(RTLD_NEXT). A fully static one (`swiftc -static-executable`) has no next
// object: there, libc.a's members define internal aliases of the same functions (__pthread_create_2_1,
// __posix_spawn...), which the weak references below reach. A weak reference does not make the linker take an
// archive member, so this file also asks the linker, through Swift's autolink entries (swift-autolink-extract
// passes them to every link swiftc or SwiftPM makes), to take the members that define them; in a dynamic link,
// libc.so exports none of them, the references stay NULL and nothing else changes. execve and fexecve are
// single system calls, made directly when nothing else is found.
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

__asm__(".section .swift1_autolink_entries,\"e\",@progbits\n"
        ".asciz \"-Wl,--undefined=__pthread_create_2_1,--undefined=__posix_spawn,--undefined=__posix_spawnp,"
        "--undefined=__execvpe,--undefined=__libc_system,--undefined=_IO_new_popen\"\n"
        ".previous\n");

extern int __pthread_create_2_1(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) __attribute__((weak));
extern int __posix_spawn(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                         char *const[], char *const[]) __attribute__((weak));
extern int __posix_spawnp(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                          char *const[], char *const[]) __attribute__((weak));
extern int __execvpe(const char *, char *const[], char *const[]) __attribute__((weak));
extern int __libc_system(const char *) __attribute__((weak));
extern FILE *_IO_new_popen(const char *, const char *) __attribute__((weak));

struct trail_real_calls trail_real;

static int direct_execve(const char *path, char *const argv[], char *const envp[]) {
    return (int)syscall(SYS_execve, path, argv, envp);
}

/// execveat on the descriptor itself, or its /proc/self/fd path on kernels before 3.19.
static int direct_fexecve(int fd, char *const argv[], char *const envp[]) {
    syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
    if (errno != ENOSYS) return -1;
    char path[32] = "/proc/self/fd/";
    size_t at = 14, digits = 1;
    for (int rest = fd / 10; rest; rest /= 10) digits++;
    for (size_t i = digits; i-- > 0; fd /= 10) path[at + i] = (char)('0' + fd % 10);
    path[at + digits] = 0;
    return direct_execve(path, argv, envp);
}

// A sanitizer's runtime (TSan, ASan) linked into the executable intercepts some of these with weak definitions
// of the same names, which Trail's replace there; its interceptors stay reachable as __interceptor_NAME. Trail
// calls them instead of libc's, or the sanitizer would never see the thread start (TSan crashed on its first
// event) or the child spawned. Not when the process resolves NAME to the interceptor itself (Trail in a shared
// library, after the executable): the sanitizer calls Trail then, and calling it back would loop.
#define SANITIZED(name)                                                                                  \
    extern void __interceptor_##name(void) __attribute__((weak));                                        \
    extern void __interceptor_trampoline_##name(void) __attribute__((weak));                             \
    static void *sanitized_##name(void) {                                                                \
        if (!__interceptor_##name) return NULL;                                                          \
        void *first = dlsym(RTLD_DEFAULT, #name);                                                        \
        return first == (void *)__interceptor_##name || first == (void *)__interceptor_trampoline_##name \
                   ? NULL                                                                                \
                   : (void *)__interceptor_##name;                                                       \
    }
SANITIZED(pthread_create)
SANITIZED(posix_spawn)
SANITIZED(posix_spawnp)
SANITIZED(execve)
SANITIZED(execvpe)
SANITIZED(fexecve)
SANITIZED(system)
SANITIZED(popen)
SANITIZED(_exit)

static void *next(const char *name, void *sanitized, void *linked) {
    if (sanitized) return sanitized;
    if (linked) return linked;
    return __pthread_create_2_1 ? NULL : dlsym(RTLD_NEXT, name);  // a static link has no next object
}

void trail_real_resolve(void) {
    if (__atomic_load_n(&trail_real.resolved, __ATOMIC_ACQUIRE)) return;
    struct trail_real_calls found = { 0 };
    found.pthread_create = next("pthread_create", sanitized_pthread_create(), (void *)__pthread_create_2_1);
    found.posix_spawn = next("posix_spawn", sanitized_posix_spawn(), (void *)__posix_spawn);
    found.posix_spawnp = next("posix_spawnp", sanitized_posix_spawnp(), (void *)__posix_spawnp);
    found.execve = next("execve", sanitized_execve(), NULL);
    if (!found.execve) found.execve = direct_execve;
    found.execvpe = next("execvpe", sanitized_execvpe(), (void *)__execvpe);
    found.fexecve = next("fexecve", sanitized_fexecve(), NULL);
    if (!found.fexecve) found.fexecve = direct_fexecve;
    found.system = next("system", sanitized_system(), (void *)__libc_system);
    found.popen = next("popen", sanitized_popen(), (void *)_IO_new_popen);
    found.sanitizer_exit = sanitized__exit();
    found.resolved = 1;
    // Two threads may both get here before a constructor ran (another library's): they find the same.
    __atomic_store_n(&trail_real.pthread_create, found.pthread_create, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.posix_spawn, found.posix_spawn, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.posix_spawnp, found.posix_spawnp, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.execve, found.execve, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.execvpe, found.execvpe, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.fexecve, found.fexecve, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.system, found.system, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.popen, found.popen, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.sanitizer_exit, found.sanitizer_exit, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_real.resolved, 1, __ATOMIC_RELEASE);
}

// Before the other constructors: hooks.c's starts the writer thread through pthread_create.
__attribute__((constructor(101))) static void resolve_at_start(void) { trail_real_resolve(); }
