/*
 * capstan's CNI plugin as containerd executes it: a thin static client. Starting Node for
 * every pod would cost 100+ ms, so this program forwards the CNI environment and the
 * network config to the running node network agent (`capstan network-agent`) over a unix
 * socket and prints the agent's answer verbatim with the agent's exit code. The same
 * binary installed as `loopback` serves containerd's loopback call the same way.
 *
 * Wire format (request, then the plugin half-closes):
 *   "CAPSTAN-CNI 1\n" "PID=<pid>\n" { "CNI_...=value\n" } "\n" <stdin bytes>
 * Reply, until the agent closes:  "<exit code>\n" <stdout bytes>
 * The PID lets the agent reach CNI_NETNS through /proc/<pid>/root: containerd may keep its
 * netns mounts in a private mount namespace that only processes it starts can see.
 *
 * The socket: $CAPSTAN_CNI_SOCKET, else "agentSocket" in the config, else the path in the
 * file `capstan.socket-path` next to this executable (the agent writes it when it installs
 * the plugin; containerd's loopback config names no socket), else /run/capstan/cni.sock.
 *
 * VERSION is answered here, so it works while the agent is down. An unreachable agent is
 * CNI error 11 ("try again later"): containerd retries the sandbox.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_SOCKET "/run/capstan/cni.sock"
#define SUPPORTED "[\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\"]"

extern char **environ;

static char *input;
static size_t input_len;

static void write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    buf += n;
    len -= (size_t)n;
  }
}

static void read_stdin(void) {
  size_t cap = 8192;
  input = malloc(cap + 1);
  if (!input) exit(1);
  for (;;) {
    if (input_len == cap) {
      cap *= 2;
      input = realloc(input, cap + 1);
      if (!input) exit(1);
    }
    ssize_t n = read(0, input + input_len, cap - input_len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    input_len += (size_t)n;
  }
  input[input_len] = 0;
}

/* The first string value of "key" in the JSON text (paths and versions need no unescaping). */
static int json_string(const char *json, const char *key, char *out, size_t outlen) {
  size_t klen = strlen(key);
  for (const char *p = json; (p = strchr(p, '"')) != NULL; p++) {
    if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '"') continue;
    const char *q = p + 2 + klen;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (*q != ':') continue;
    q++;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (*q != '"') continue;
    q++;
    size_t i = 0;
    while (*q && *q != '"' && i + 1 < outlen) out[i++] = *q++;
    if (*q != '"') return 0;
    out[i] = 0;
    return 1;
  }
  return 0;
}

static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
}

static const char *cni_version(void) {
  static char v[32];
  if (!v[0] && !json_string(input, "cniVersion", v, sizeof v)) strcpy(v, "1.0.0");
  return v;
}

/* The socket path the agent left next to this executable, if any. */
static int socket_beside_exe(char *out, size_t outlen) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 32);
  if (n <= 0) return 0;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return 0;
  strcpy(slash + 1, "capstan.socket-path");
  FILE *f = fopen(exe, "re");
  if (!f) return 0;
  size_t len = fread(out, 1, outlen - 1, f);
  fclose(f);
  while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' ')) len--;
  out[len] = 0;
  return len > 0 && len < outlen - 1;
}

static int fail(int code, const char *msg, const char *details) {
  printf("{\"cniVersion\":\"");
  put_escaped(stdout, cni_version());
  printf("\",\"code\":%d,\"msg\":\"", code);
  put_escaped(stdout, msg);
  printf("\",\"details\":\"");
  put_escaped(stdout, details);
  printf("\"}\n");
  fflush(stdout);
  return 1;
}

int main(void) {
  read_stdin();
  const char *cmd = getenv("CNI_COMMAND");
  if (cmd && strcmp(cmd, "VERSION") == 0) {
    printf("{\"cniVersion\":\"1.0.0\",\"supportedVersions\":" SUPPORTED "}\n");
    return 0;
  }

  char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
  const char *env_socket = getenv("CAPSTAN_CNI_SOCKET");
  if (env_socket && *env_socket) {
    if (strlen(env_socket) >= sizeof path) return fail(4, "CAPSTAN_CNI_SOCKET is too long", env_socket);
    strcpy(path, env_socket);
  } else if (!json_string(input, "agentSocket", path, sizeof path) && !socket_beside_exe(path, sizeof path)) {
    strcpy(path, DEFAULT_SOCKET);
  }

  /* The header: our pid and every CNI_* variable, one a line. */
  size_t hcap = 4096, hlen = 0;
  char *header = malloc(hcap);
  if (!header) return 1;
  hlen += (size_t)snprintf(header, hcap, "CAPSTAN-CNI 1\nPID=%ld\n", (long)getpid());
  for (char **e = environ; *e; e++) {
    if (strncmp(*e, "CNI_", 4) != 0) continue;
    if (strchr(*e, '\n')) return fail(4, "a CNI environment variable contains a newline", *e);
    size_t len = strlen(*e);
    if (hlen + len + 2 > hcap) {
      hcap = (hlen + len + 2) * 2;
      header = realloc(header, hcap);
      if (!header) return 1;
    }
    memcpy(header + hlen, *e, len);
    hlen += len;
    header[hlen++] = '\n';
  }
  header[hlen++] = '\n';

  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(5, "cannot create a unix socket", strerror(errno));
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, path);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    char details[512];
    snprintf(details, sizeof details, "connect %s: %s", path, strerror(errno));
    return fail(11, "the capstan network agent is not running", details);
  }
  write_all(fd, header, hlen);
  write_all(fd, input, input_len);
  shutdown(fd, SHUT_WR);

  size_t cap = 8192, len = 0;
  char *reply = malloc(cap + 1);
  if (!reply) return 1;
  for (;;) {
    if (len == cap) {
      cap *= 2;
      reply = realloc(reply, cap + 1);
      if (!reply) return 1;
    }
    ssize_t n = read(fd, reply + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += (size_t)n;
  }
  reply[len] = 0;
  char *nl = memchr(reply, '\n', len);
  char *end = NULL;
  long code = nl ? strtol(reply, &end, 10) : -1;
  if (!nl || end != nl || code < 0 || code > 255) {
    return fail(11, "the capstan network agent closed the connection without an answer", path);
  }
  write_all(1, nl + 1, len - (size_t)(nl + 1 - reply));
  return (int)code;
}
