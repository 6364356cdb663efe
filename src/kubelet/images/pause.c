/*
 * capstan pause: the PID 1 of every pod sandbox. It holds the pod's namespaces open,
 * reaps the zombies that get reparented to it (containers sharing the pod's PID
 * namespace), and exits at once on SIGTERM or SIGINT so StopPodSandbox never waits out
 * its grace period. Built static (gcc -static -Os) so the image needs nothing else.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_terminate(int sig) {
    (void)sig;
    _exit(0);
}

static void on_child(int sig) {
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        puts("capstan-pause 1");
        return 0;
    }
    if (getpid() != 1) fputs("pause: warning: not PID 1, zombies elsewhere are not reaped\n", stderr);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_terminate;
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0) return 1;
    sa.sa_handler = on_child;
    sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
    if (sigaction(SIGCHLD, &sa, NULL) != 0) return 1;

    for (;;) pause();
}
