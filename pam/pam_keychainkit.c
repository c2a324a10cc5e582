/*
 * pam_keychainkit: unlocks the user's login keychain in the KeychainKit keychain service at
 * login, with the login password, and locks it at logout (docs/SERVICE.md, "Unlock at login").
 *
 *   auth     optional  pam_keychainkit.so   keeps the password (after the module that checks it)
 *   session  optional  pam_keychainkit.so   open: unlock (first login: create); close: lock
 *
 * Options: socket=PATH (default /run/keychainkit/service.sock), service_user=NAME (default
 * keychainkit). Before anything is sent, the socket's owner is checked with SO_PEERCRED: the
 * process that listens must be the service's user or root (socket activation, or the service
 * before it drops to its user); a socket anyone else planted gets nothing. The connection is
 * made by a child process that has become the user, so the service (which identifies callers by
 * the kernel's SO_PEERCRED) serves exactly that user's keychain. The password is wiped as soon as it has been
 * sent, and never logged. The module never decides a login: it returns PAM_IGNORE.
 *
 * The wire format is the service's (Sources/KeychainServiceWire): a 4-byte big-endian length,
 * then version 1, the operation, no application identifier, no access groups, the entries (at
 * most "password" as data), no changes. The reply starts with version 1 and the OSStatus.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#define DATA_NAME "pam_keychainkit.password"
#define DEFAULT_SOCKET "/run/keychainkit/service.sock"
#define DEFAULT_SERVICE_USER "keychainkit"

enum { OP_UNLOCK = 5, OP_LOCK = 6, OP_CREATE = 7 };
enum { STATUS_NO_SUCH_KEYCHAIN = -25294 };
/* A reply that is not the service's, or no reply: never a status the service sends. */
enum { STATUS_NO_ANSWER = 1 };

struct options {
    const char *socket;
    const char *service_user;
};

static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *options) {
    options->socket = DEFAULT_SOCKET;
    options->service_user = DEFAULT_SERVICE_USER;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "socket=", 7) == 0) options->socket = argv[i] + 7;
        else if (strncmp(argv[i], "service_user=", 13) == 0) options->service_user = argv[i] + 13;
        else pam_syslog(pamh, LOG_ERR, "unknown option %s (socket=PATH, service_user=NAME)", argv[i]);
    }
}

/* Frees a stashed password after overwriting it. */
static void wipe_password(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    if (data == NULL) return;
    explicit_bzero(data, strlen(data));
    free(data);
}

static int write_all(int fd, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t sent = send(fd, bytes, count, MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += sent;
        count -= (size_t)sent;
    }
    return 0;
}

static int read_all(int fd, unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t got = recv(fd, bytes, count, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        bytes += got;
        count -= (size_t)got;
    }
    return 0;
}

static void put32(unsigned char *at, uint32_t value) {
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

static uint32_t get32(const unsigned char *at) {
    return (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 8 | (uint32_t)at[3];
}

/*
 * Connects to the socket and checks who listens there: the service's user or root, else nothing
 * is sent. Returns the connected descriptor, or -1 (logged).
 */
static int connect_to_service(pam_handle_t *pamh, const struct options *options) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    if (strlen(options->socket) >= sizeof address.sun_path) {
        pam_syslog(pamh, LOG_ERR, "socket path %s is too long", options->socket);
        return -1;
    }
    strcpy(address.sun_path, options->socket);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct timeval timeout = { .tv_sec = 20 };  /* an unlock costs one scrypt run: seconds at most */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        pam_syslog(pamh, LOG_NOTICE, "keychain service at %s not reachable: %s", options->socket, strerror(errno));
        close(fd);
        return -1;
    }
    struct ucred peer;
    socklen_t length = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
        pam_syslog(pamh, LOG_ERR, "SO_PEERCRED on %s: %s", options->socket, strerror(errno));
        close(fd);
        return -1;
    }
    struct passwd *service = getpwnam(options->service_user);
    if (peer.uid != 0 && (service == NULL || peer.uid != service->pw_uid)) {
        pam_syslog(pamh, LOG_ERR, "%s is served by uid %u, not by %s or root: nothing sent", options->socket,
                   (unsigned)peer.uid, options->service_user);
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * One request (with the password when not NULL) on a connection of its own; returns the
 * service's OSStatus, or STATUS_NO_ANSWER. The request's copy of the password is wiped.
 */
static int exchange(pam_handle_t *pamh, const struct options *options, int operation, const char *password) {
    int fd = connect_to_service(pamh, options);
    if (fd < 0) return STATUS_NO_ANSWER;
    static const char key[] = "password";
    size_t password_length = password ? strlen(password) : 0;
    size_t payload = 1 + 1 + 1 + 4 + 4 + (password ? 4 + sizeof key - 1 + 1 + 4 + password_length : 0) + 4;
    unsigned char *frame = calloc(1, 4 + payload);
    if (frame == NULL) {
        close(fd);
        return STATUS_NO_ANSWER;
    }
    unsigned char *at = frame;
    put32(at, (uint32_t)payload); at += 4;
    *at++ = 1;                  /* protocol version */
    *at++ = (unsigned char)operation;
    *at++ = 0;                  /* no application identifier claimed */
    put32(at, 0); at += 4;      /* no access groups claimed */
    put32(at, password ? 1 : 0); at += 4;
    if (password) {
        put32(at, sizeof key - 1); at += 4;
        memcpy(at, key, sizeof key - 1); at += sizeof key - 1;
        *at++ = 2;              /* data */
        put32(at, (uint32_t)password_length); at += 4;
        memcpy(at, password, password_length); at += password_length;
    }
    put32(at, 0);               /* no changes */
    int sent = write_all(fd, frame, 4 + payload);
    explicit_bzero(frame, 4 + payload);
    free(frame);
    int status = STATUS_NO_ANSWER;
    unsigned char header[4], reply[5];
    if (sent == 0 && read_all(fd, header, 4) == 0 && get32(header) >= 5 && get32(header) <= (1u << 20)
        && read_all(fd, reply, 5) == 0 && reply[0] == 1) {
        status = (int32_t)get32(reply + 1);
        /* The rest of the reply (a reason) is read too: closing with unread bytes resets the connection. */
        unsigned char rest[256];
        for (uint32_t left = get32(header) - 5; left > 0;) {
            uint32_t chunk = left < sizeof rest ? left : (uint32_t)sizeof rest;
            if (read_all(fd, rest, chunk) != 0) break;
            left -= chunk;
        }
    }
    close(fd);
    return status;
}

/*
 * Runs `operation` (and, for a first login, a create) in a child process that has become the
 * user entirely (real, effective and saved ids: the service checks that the connecting process
 * still belongs to the uid it connected with), so the caller's own ids never change.
 */
static int request_as_user(pam_handle_t *pamh, const struct options *options, int operation, const char *password,
                           const char *action) {
    const char *name = NULL;
    if (pam_get_user(pamh, &name, NULL) != PAM_SUCCESS || name == NULL) return PAM_IGNORE;
    struct passwd *user = getpwnam(name);
    if (user == NULL) return PAM_IGNORE;
    uid_t uid = user->pw_uid;
    gid_t gid = user->pw_gid;
    if (geteuid() != 0 && !(getuid() == uid && geteuid() == uid)) {
        pam_syslog(pamh, LOG_NOTICE, "cannot %s %s's keychain from uid %u", action, name, (unsigned)geteuid());
        return PAM_IGNORE;
    }
    pid_t child = fork();
    if (child < 0) {
        pam_syslog(pamh, LOG_ERR, "fork: %s", strerror(errno));
        return PAM_IGNORE;
    }
    if (child == 0) {
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)) _exit(2);
        int status = exchange(pamh, options, operation, password);
        if (operation == OP_UNLOCK && status == STATUS_NO_SUCH_KEYCHAIN) status = exchange(pamh, options, OP_CREATE, password);
        if (status == 0) pam_syslog(pamh, LOG_INFO, "%s's login keychain: %s done", name, action);
        else pam_syslog(pamh, LOG_NOTICE, "%s's login keychain: %s failed (OSStatus %d)", name, action, status);
        _exit(status == 0 ? 0 : 1);
    }
    int child_status = 0;
    while (waitpid(child, &child_status, 0) < 0 && errno == EINTR) continue;
    return PAM_IGNORE;
}

/* Keeps the password the stack was given (or asks for it) until the session opens. */
PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const char *token = NULL;
    if (pam_get_authtok(pamh, PAM_AUTHTOK, &token, NULL) != PAM_SUCCESS || token == NULL) return PAM_IGNORE;
    char *copy = strdup(token);
    if (copy == NULL) return PAM_IGNORE;
    if (pam_set_data(pamh, DATA_NAME, copy, wipe_password) != PAM_SUCCESS) wipe_password(pamh, copy, 0);
    return PAM_IGNORE;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh; (void)flags; (void)argc; (void)argv;
    return PAM_IGNORE;
}

/* Unlocks the login keychain with the kept password, then forgets the password. */
PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const void *data = NULL;
    if (pam_get_data(pamh, DATA_NAME, &data) != PAM_SUCCESS || data == NULL) return PAM_IGNORE;
    int result = request_as_user(pamh, &options, OP_UNLOCK, data, "unlock");
    pam_set_data(pamh, DATA_NAME, NULL, NULL);  /* runs wipe_password on the kept copy */
    return result;
}

/* Locks the login keychain at logout. */
PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    return request_as_user(pamh, &options, OP_LOCK, NULL, "lock");
}
