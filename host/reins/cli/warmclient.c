/* The `reins` executable of a build with a C compiler: hands the command to the warm CLI
 * (reins/cli/warm.py, which forks a copy of the already-imported Python CLI per command) and
 * exits with its exit code; when no warm CLI answers, runs the console script (`reins-py`,
 * beside this file), which starts one for the next command. What a command does, parses, prints
 * and exits with is the console script's own either way: this file only carries bytes.
 *
 * The warm CLI's socket: $REINS_HOME/warm, else $XDG_STATE_HOME/reins/warm, else
 * ~/.local/state/reins/warm (reins/_paths.py, home_str), named <FNV-1a of the folder this
 * executable is in, 16 hex digits>.sock, so two installs never share one. REINS_NO_WARM=1 skips it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

extern char **environ;

static int warm_fd = -1;

static int own_dir(char *out, size_t size) {
    char buf[PATH_MAX];
#ifdef __APPLE__
    uint32_t n = sizeof buf;
    if (_NSGetExecutablePath(buf, &n) != 0) return -1;
    if (!realpath(buf, out)) return -1;
#else
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return -1;
    buf[n] = 0;
    if (strlen(buf) >= size) return -1;
    strcpy(out, buf);
#endif
    char *slash = strrchr(out, '/');
    if (!slash) return -1;
    *slash = 0;
    return 0;
}

/* An absolute path: relative ones are taken from the working folder, as os.path.join(getcwd()). */
static int absolute(const char *path, char *out, size_t size) {
    if (path[0] == '/') return snprintf(out, size, "%s", path) < (int)size ? 0 : -1;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    return snprintf(out, size, "%s/%s", cwd, path) < (int)size ? 0 : -1;
}

static int state_home(char *out, size_t size) {
    const char *home = getenv("HOME");
    const char *env = getenv("REINS_HOME");
    char tmp[PATH_MAX];
    if (env && *env) {
        if (env[0] == '~' && (env[1] == '/' || env[1] == 0)) {
            if (!home) return -1;
            if (snprintf(tmp, sizeof tmp, "%s%s", home, env + 1) >= (int)sizeof tmp) return -1;
            return absolute(tmp, out, size);
        }
        if (env[0] == '~') return -1; /* ~user: leave it to Python's expanduser */
        return absolute(env, out, size);
    }
    const char *xdg = getenv("XDG_STATE_HOME");
    if (xdg && *xdg) {
        if (absolute(xdg, tmp, sizeof tmp) != 0) return -1;
    } else {
        if (!home || !*home) return -1;
        if (snprintf(tmp, sizeof tmp, "%s/.local/state", home) >= (int)sizeof tmp) return -1;
    }
    return snprintf(out, size, "%s/reins", tmp) < (int)size ? 0 : -1;
}

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static void run_console(const char *dir, char **argv, const char *sock_path) {
    char script[PATH_MAX];
    if (snprintf(script, sizeof script, "%s/reins-py", dir) >= (int)sizeof script) _exit(127);
    if (sock_path) setenv("REINS_WARM_SOCKET", sock_path, 1);
    argv[0] = script;
    execv(script, argv);
    fprintf(stderr, "reins: cannot run %s: %s\n", script, strerror(errno));
    _exit(127);
}

static volatile sig_atomic_t forwarded = 0;

static void forward(int sig) {
    unsigned char byte = (unsigned char)sig;
    forwarded = sig;
    if (warm_fd >= 0) {
        ssize_t ignored = write(warm_fd, &byte, 1);
        (void)ignored;
    }
}

/* The message: u32 length, then NUL-separated fields (see warm.py). */
static char *message(int argc, char **argv, size_t *len) {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return NULL;
    size_t envc = 0, total = 64 + strlen(cwd);
    for (int i = 1; i < argc; i++) total += strlen(argv[i]) + 1;
    for (char **e = environ; *e; e++, envc++) total += strlen(*e) + 1;
    char *buf = malloc(total + 4);
    if (!buf) return NULL;
    char *p = buf + 4;
    p += sprintf(p, "%d", argc - 1) + 1;
    for (int i = 1; i < argc; i++) p = stpcpy(p, argv[i]) + 1;
    p += sprintf(p, "%zu", envc) + 1;
    for (char **e = environ; *e; e++) p = stpcpy(p, *e) + 1;
    p = stpcpy(p, cwd) + 1;
    mode_t mask = umask(0);
    umask(mask);
    p += sprintf(p, "%o", (unsigned)mask);
    uint32_t body = (uint32_t)(p - (buf + 4));
    memcpy(buf, &body, 4); /* little-endian hosts only: x86-64, arm64 */
    *len = (size_t)(p - buf);
    return buf;
}

/* Is the process at the other end of this Unix socket this user's? */
static int peer_is_me(int fd) {
#ifdef __APPLE__
    uid_t uid;
    gid_t gid;
    if (getpeereid(fd, &uid, &gid) != 0) return 0;
    return uid == getuid();
#else
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return 0;
    return cred.uid == getuid();
#endif
}

static int read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int main(int argc, char **argv) {
    char dir[PATH_MAX], home[PATH_MAX], path[PATH_MAX + 64];
    if (own_dir(dir, sizeof dir) != 0) {
        fprintf(stderr, "reins: cannot find the folder this program is in\n");
        return 127;
    }
    const char *off = getenv("REINS_NO_WARM");
    if ((off && *off && strcmp(off, "0") != 0) || state_home(home, sizeof home) != 0)
        run_console(dir, argv, NULL);
    int n = snprintf(path, sizeof path, "%s/warm/%016llx.sock", home,
                     (unsigned long long)fnv1a(dir));
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (n <= 0 || (size_t)n >= sizeof addr.sun_path) run_console(dir, argv, NULL);
    memcpy(addr.sun_path, path, (size_t)n + 1);

    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        if (fd >= 0) close(fd);
        run_console(dir, argv, path);
    }
    if (!peer_is_me(fd)) {
        /* Not this user's warm CLI (a REINS_HOME another user controls): it gets nothing — not
         * the arguments, not the environment, not the streams. The console script runs the
         * command and says what is wrong with the folder; no warm CLI is started for it. */
        close(fd);
        run_console(dir, argv, NULL);
    }
    size_t len = 0;
    char *buf = message(argc, argv, &len);
    if (!buf) run_console(dir, argv, NULL);

    int fds[3] = {0, 1, 2};
    char control[CMSG_SPACE(sizeof fds)];
    memset(control, 0, sizeof control);
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                         .msg_controllen = sizeof control};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    ssize_t sent = sendmsg(fd, &msg, 0);
    if (sent < 0) { close(fd); run_console(dir, argv, path); }
    size_t rest = len - (size_t)sent;
    const char *at = buf + sent;
    while (rest > 0) {
        ssize_t w = write(fd, at, rest);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { close(fd); run_console(dir, argv, path); }
        rest -= (size_t)w;
        at += w;
    }
    free(buf);

    unsigned char kind;
    if (read_full(fd, &kind, 1) != 0 || kind != 'F') {
        /* Stale (an upgrade or an edit since the warm CLI started), or it went away before it
         * forked: nothing ran, so the console script runs the command (and starts a new one). */
        close(fd);
        run_console(dir, argv, path);
    }
    uint32_t pid;
    if (read_full(fd, &pid, 4) != 0) return 1;
    warm_fd = fd;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    int32_t code;
    if (read_full(fd, &kind, 1) != 0 || kind != 'X' || read_full(fd, &code, 4) != 0) {
        if (forwarded) { /* the signal passed on ended the command: end by it too */
            signal(forwarded, SIG_DFL);
            kill(getpid(), forwarded);
        }
        fprintf(stderr, "reins: the command (pid %u) ended without an exit code\n", pid);
        return 1;
    }
    if (code < 0) { /* ended by a signal (an uncaught Ctrl-C): end the same way */
        signal(-code, SIG_DFL);
        kill(getpid(), -code);
        return 128 - code;
    }
    return code & 0xFF;
}
