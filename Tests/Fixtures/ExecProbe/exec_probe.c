// The exec family as C programs call it, linked with the runtime's C objects (ExecHandoffTests): the list forms,
// vfork, signal handlers, small thread stacks, huge and empty environments, system and popen.
// `exec-probe MODE [COUNT]`; a traced call is open around every child started.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <trail_hooks.h>

extern char **environ;

static void enter(void) {
    if (*trail_mode_address) trail_enter_sync("ExecProbe.spawner() @ exec_probe.c:1");
}

static void leave(void) {
    if (*trail_mode_address) trail_exit_sync();
}

static void calls(int count) {
    for (int i = 0; i < count; i++) {
        if (*trail_mode_address) trail_enter_sync("ExecProbe.call() @ exec_probe.c:2");
        if (*trail_mode_address) trail_exit_sync();
    }
}

#define A10 "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"
#define A100 A10, A10, A10, A10, A10, A10, A10, A10, A10, A10
#define A1000 A100, A100, A100, A100, A100, A100, A100, A100, A100, A100

static const char *mode;

// dlsym is not async-signal-safe: once main runs, the runtime must not need it (mode no-dlsym). This definition
// comes before libc's for the runtime's objects linked into this program.
static int main_started;

void *dlsym(void *handle, const char *name) {
    static void *(*real)(void *, const char *);
    if (!real) real = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (main_started) {
        static const char said[] = "dlsym after main started: ";
        ssize_t ignored = write(2, said, sizeof said - 1);
        ignored = write(2, name, strlen(name));
        ignored = write(2, "\n", 1);
        (void)ignored;
    }
    return real(handle, name);
}

static void *nothing(void *unused) { return unused; }

static void *exec_on_small_stack(void *unused) {
    (void)unused;
    if (!strcmp(mode, "vfork-small-stack")) {
        pid_t child = vfork();
        if (child == 0) {
            execle("/bin/sh", "sh", "-c", "echo ran in a vfork child", (char *)0, environ);
            _exit(127);
        }
        int status = 0;
        waitpid(child, &status, 0);
        printf("vfork child status %d\n", WEXITSTATUS(status));
        fflush(stdout);
        exit(0);
    }
    execl("/bin/sh", "sh", "-c", "echo ran on a small stack", (char *)0);
    return NULL;
}

static void exec_from_handler(int signal) {
    (void)signal;
    execl("/bin/sh", "sh", "-c", "echo exec from a handler", (char *)0);
    _exit(126);
}

int main(int argc, char **argv) {
    mode = argc > 1 ? argv[1] : "";
    int count = argc > 2 ? atoi(argv[2]) : 100;
    if (!strcmp(mode, "execl-small-stack") || !strcmp(mode, "vfork-small-stack")) {
        // 32 KiB: what a program may give a thread that only execs; untraced execl needs far less.
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setstacksize(&attributes, 32768);
        pthread_t thread;
        if (pthread_create(&thread, &attributes, exec_on_small_stack, NULL) != 0) return 3;
        pthread_join(thread, NULL);
        return 4;
    }
    if (!strcmp(mode, "no-dlsym")) {
        main_started = 1;
        pthread_t thread;
        if (pthread_create(&thread, NULL, nothing, NULL) != 0) return 3;
        pthread_join(thread, NULL);
        pid_t child;
        char *arguments[] = { "true", NULL };
        if (posix_spawn(&child, "/bin/true", NULL, NULL, arguments, environ) != 0) return 3;
        waitpid(child, NULL, 0);
        execl("/bin/sh", "sh", "-c", "echo done", (char *)0);
        return 5;
    }
    if (!strcmp(mode, "execl-many")) {
        enter();
        execl("/bin/sh", "sh", "-c", "echo $# ${TRACEPARENT:+traceparent}", "sh", A1000, A1000, A1000, A1000, A1000,
              (char *)0);
        printf("execl failed: %s\n", strerror(errno));
        return 5;
    }
    if (!strcmp(mode, "execle-huge-env")) {
        char **environment = calloc((size_t)count + 2, sizeof(char *));
        environment[0] = "PATH=/usr/bin:/bin";
        for (int i = 1; i <= count; i++) {
            environment[i] = malloc(24);
            snprintf(environment[i], 24, "V%d=x", i);
        }
        enter();
        execle("/bin/sh", "sh", "-c", "echo ${TRACEPARENT:-none} ${V1:-missing}", (char *)0, environment);
        return 5;
    }
    if (!strcmp(mode, "execle-empty-env")) {
        char *empty[] = { NULL };
        enter();
        execle("/usr/bin/env", "env", (char *)0, empty);
        return 5;
    }
    if (!strcmp(mode, "execle-own")) {
        char *own[] = { "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", NULL };
        enter();
        execle("/usr/bin/env", "env", (char *)0, own);
        return 5;
    }
    if (!strcmp(mode, "system")) {
        enter();
        int status = system("echo system ${TRACEPARENT:-none}; exit 3");
        leave();
        printf("status %d\n", WEXITSTATUS(status));
        return 0;
    }
    if (!strcmp(mode, "popen")) {
        enter();
        FILE *child = popen("echo popen ${TRACEPARENT:-none}", "r");
        char line[256] = "";
        if (!child || !fgets(line, sizeof line, child)) return 5;
        printf("%s", line);
        printf("status %d\n", WEXITSTATUS(pclose(child)));
        leave();
        return 0;
    }
    if (!strcmp(mode, "exec-soon") || !strcmp(mode, "exec-late") || !strcmp(mode, "exec-in-handler")) {
        calls(count);
        if (!strcmp(mode, "exec-late")) {
            // Past the writer's first drain: the file is open and holds the first calls.
            struct timespec pause = { 0, 200000000 };
            nanosleep(&pause, NULL);
            calls(count);
        }
        if (!strcmp(mode, "exec-in-handler")) {
            signal(SIGUSR1, exec_from_handler);
            raise(SIGUSR1);
        }
        fflush(stdout);
        execl("/bin/sh", "sh", "-c", "echo exec ran", (char *)0);
        return 5;
    }
    if (!strcmp(mode, "exec-fails")) {
        calls(count);
        execl("/nonexistent/program", "program", (char *)0);
        printf("exec failed: %s\n", strerror(errno));
        calls(count);
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL);
        execlp("no-such-program-anywhere", "program", (char *)0);
        calls(count);
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
