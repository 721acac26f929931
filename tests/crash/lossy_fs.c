// lossy_fs: an in-memory FUSE file system that forgets what was not synced, for power-cut
// tests (tests/wire/test_power_cut.py), and that can run out of space, for disk-full tests
// (tests/wire/test_disk_full.py).
//
// Every file keeps, beside its current bytes, what was on "stable storage" when it was last
// fsynced (or fdatasynced); every directory keeps its entries as of its last fsync. That is
// the strict POSIX rule a real file system may be laxer than: a new file, a rename or an
// unlink is durable only once its directory is synced, and written bytes only once their
// file is. Two control calls, made as setxattr on the mount's root (synchronous, so the
// caller knows they are done; setfattr -n NAME MNT, or os.setxattr(MNT, NAME, b"")):
//
//   user.lossyfs.cut        the power cut: every file and directory goes back to what was
//                           synced. With --torn-tails=SEED, each file keeps a random prefix
//                           of its unsynced appended bytes (a page cache written back in
//                           part, and a write torn mid-record). What remains is then the
//                           disk: all of it counts as synced.
//   user.lossyfs.writeback  the OS writing its cache back: everything becomes synced.
//   user.lossyfs.budget     the value (decimal bytes; empty: no limit) becomes the space the
//                           file system has: once the files' bytes reach it, a write that
//                           would grow them is cut short where the space ends and the next
//                           one fails with ENOSPC, as a full disk does (so does a truncate
//                           or fallocate that grows a file). Lowering it below what is used
//                           frees nothing; raising it is space freed by someone else.
//
// And one to read, as getxattr on the root (getfattr -n NAME MNT, os.getxattr(MNT, NAME)):
//
//   user.lossyfs.used       the bytes of every file reachable from the root, in decimal:
//                           what counts against the budget (an unlinked file's space is
//                           free at once, open or not; directories take none).
//
// Each control call prints one line on stderr ("cut: ..." with the bytes and entries it
// discarded). The kernel is told to cache nothing (direct_io, zero timeouts), so a cut is
// seen at once. One thread serves the mount; nothing is ever freed (tests are bounded).
//
// statfs reports the budget as the size of the file system and what is left of it as free.
//
// Usage: lossy_fs [--torn-tails=SEED] [--budget=BYTES] MOUNTPOINT
//        (runs in the foreground; SIGTERM unmounts)
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE  // RENAME_NOREPLACE, FALLOC_FL_KEEP_SIZE

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

typedef struct Node Node;

typedef struct {
  char* name;
  Node* node;
} Entry;

typedef struct {
  Entry* v;
  size_t n, cap;
} Entries;

// The bytes at [off, off + len) before a change that touched synced content.
typedef struct {
  size_t off, len;
  char* bytes;
} Undo;

struct Node {
  int dir;
  struct timespec mtime;
  // Files: the current bytes; the synced length; undo records of changes to synced bytes
  // since the last sync (applied newest first, they give back the synced bytes).
  char* data;
  size_t size, cap, synced_size;
  Undo* undo;
  size_t nundo, capundo;
  // Directories: the current entries and those as of the last sync.
  Entries cur, synced;
  Node* next_all;  // every node ever made, for cut and writeback
};

static Node* root;
static Node* all_nodes;
static int torn_tails;  // keep a random prefix of unsynced appends at a cut
static unsigned long long fsyncs, dir_fsyncs;
static int has_budget;                  // writes are limited to `budget` bytes in all
static unsigned long long budget;       // meaningful when has_budget
static unsigned long long enospc_errors;  // writes refused or cut short for want of space

static void* Grow(void* p, size_t* cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void* q = realloc(p, c * elem);
  if (!q) abort();
  *cap = c;
  return q;
}

static Node* NewNode(int dir) {
  Node* n = calloc(1, sizeof(Node));
  if (!n) abort();
  n->dir = dir;
  clock_gettime(CLOCK_REALTIME, &n->mtime);
  n->next_all = all_nodes;
  all_nodes = n;
  return n;
}

static void EntriesCopy(Entries* to, const Entries* from) {
  for (size_t i = 0; i < to->n; ++i) free(to->v[i].name);
  to->n = 0;
  to->v = Grow(to->v, &to->cap, from->n, sizeof(Entry));
  for (size_t i = 0; i < from->n; ++i) {
    to->v[i].name = strdup(from->v[i].name);
    to->v[i].node = from->v[i].node;
  }
  to->n = from->n;
}

static Entry* Find(Node* dir, const char* name, size_t len) {
  for (size_t i = 0; i < dir->cur.n; ++i) {
    if (strlen(dir->cur.v[i].name) == len && memcmp(dir->cur.v[i].name, name, len) == 0) {
      return &dir->cur.v[i];
    }
  }
  return NULL;
}

static void AddEntry(Node* dir, const char* name, Node* node) {
  dir->cur.v = Grow(dir->cur.v, &dir->cur.cap, dir->cur.n + 1, sizeof(Entry));
  dir->cur.v[dir->cur.n].name = strdup(name);
  dir->cur.v[dir->cur.n].node = node;
  dir->cur.n++;
}

static void RemoveEntry(Node* dir, Entry* e) {
  free(e->name);
  *e = dir->cur.v[--dir->cur.n];
}

// The node at path, or NULL.
static Node* Lookup(const char* path) {
  Node* n = root;
  const char* p = path;
  while (*p) {
    while (*p == '/') ++p;
    if (!*p) break;
    const char* end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (!n->dir) return NULL;
    Entry* e = Find(n, p, len);
    if (!e) return NULL;
    n = e->node;
    p += len;
  }
  return n;
}

// The directory holding path's last component, which *name points to; NULL if none.
static Node* Parent(const char* path, const char** name) {
  const char* slash = strrchr(path, '/');
  *name = slash + 1;
  char* dirpath = strndup(path, (size_t)(slash - path));
  Node* d = Lookup(dirpath);
  free(dirpath);
  return d && d->dir ? d : NULL;
}

// Records the synced bytes that [off, off + len) is about to change.
static void SaveUndo(Node* f, size_t off, size_t len) {
  size_t limit = f->size < f->synced_size ? f->size : f->synced_size;
  if (off >= limit || len == 0) return;
  if (off + len > limit) len = limit - off;
  f->undo = Grow(f->undo, &f->capundo, f->nundo + 1, sizeof(Undo));
  Undo* u = &f->undo[f->nundo++];
  u->off = off;
  u->len = len;
  u->bytes = malloc(len);
  if (!u->bytes) abort();
  memcpy(u->bytes, f->data + off, len);
}

static void Resize(Node* f, size_t size) {
  if (size < f->size) SaveUndo(f, size, f->size - size);
  f->data = Grow(f->data, &f->cap, size, 1);
  if (size > f->size) memset(f->data + f->size, 0, size - f->size);
  f->size = size;
}

static void ClearUndo(Node* f) {
  for (size_t i = 0; i < f->nundo; ++i) free(f->undo[i].bytes);
  f->nundo = 0;
}

static void SyncFile(Node* f) {
  ClearUndo(f);
  f->synced_size = f->size;
}

// The bytes of every file reachable from dir.
static unsigned long long UsedUnder(const Node* dir) {
  unsigned long long used = 0;
  for (size_t i = 0; i < dir->cur.n; ++i) {
    const Node* n = dir->cur.v[i].node;
    used += n->dir ? UsedUnder(n) : n->size;
  }
  return used;
}

// How many bytes the files may still grow by (ULLONG_MAX without a budget).
static unsigned long long Room(void) {
  if (!has_budget) return ~0ULL;
  unsigned long long used = UsedUnder(root);
  return used < budget ? budget - used : 0;
}

// Whether f may grow to `size` bytes; counts a refusal.
static int MayGrowTo(const Node* f, size_t size) {
  if (size <= f->size || size - f->size <= Room()) return 1;
  ++enospc_errors;
  return 0;
}

static int CtlBudget(const char* value, size_t size) {
  char text[32];
  if (size >= sizeof(text)) return -EINVAL;
  memcpy(text, value, size);
  text[size] = '\0';
  if (size == 0) {
    has_budget = 0;
  } else {
    char* end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || end == text) return -EINVAL;
    has_budget = 1;
    budget = v;
  }
  unsigned long long used = UsedUnder(root);
  if (has_budget) {
    fprintf(stderr, "budget: %llu bytes, %llu used, %llu writes refused for space so far\n",
            budget, used, enospc_errors);
  } else {
    fprintf(stderr, "budget: none, %llu used, %llu writes refused for space so far\n", used,
            enospc_errors);
  }
  return 0;
}

static int CtlCut(void) {
  unsigned long long lost_bytes = 0, kept_torn = 0, lost_entries = 0, files = 0;
  for (Node* n = all_nodes; n; n = n->next_all) {
    if (n->dir) {
      // Entries added or removed since the last sync of this directory.
      for (size_t i = 0; i < n->cur.n; ++i) {
        int found = 0;
        for (size_t j = 0; j < n->synced.n && !found; ++j) {
          found = n->synced.v[j].node == n->cur.v[i].node &&
                  strcmp(n->synced.v[j].name, n->cur.v[i].name) == 0;
        }
        lost_entries += !found;
      }
      EntriesCopy(&n->cur, &n->synced);
      continue;
    }
    size_t before = n->size;
    for (size_t i = n->nundo; i-- > 0;) {
      Undo* u = &n->undo[i];
      if (u->off + u->len > n->size) {
        n->data = Grow(n->data, &n->cap, u->off + u->len, 1);
        n->size = u->off + u->len;
      }
      memcpy(n->data + u->off, u->bytes, u->len);
    }
    size_t keep = 0;
    if (torn_tails && before > n->synced_size) {
      keep = (size_t)((unsigned long long)rand() * (before - n->synced_size + 1) /
                      ((unsigned long long)RAND_MAX + 1));
    }
    if (before > n->synced_size) lost_bytes += before - n->synced_size - keep;
    kept_torn += keep;
    files += n->nundo > 0 || before != n->synced_size;
    // Bytes past the synced size are still those written (only synced bytes had undos).
    n->size = n->synced_size + keep;
    SyncFile(n);  // what is left is the disk now
  }
  fprintf(stderr,
          "cut: discarded %llu unsynced bytes in %llu files and %llu unsynced directory "
          "entries; kept %llu bytes of torn tails; %llu file and %llu directory syncs before\n",
          lost_bytes, files, lost_entries, kept_torn, fsyncs, dir_fsyncs);
  return 0;
}

static int CtlWriteback(void) {
  for (Node* n = all_nodes; n; n = n->next_all) {
    if (n->dir) {
      EntriesCopy(&n->synced, &n->cur);
    } else {
      SyncFile(n);
    }
  }
  fprintf(stderr, "writeback: everything synced\n");
  return 0;
}

static Node* NodeOf(const char* path, struct fuse_file_info* fi) {
  if (fi && fi->fh) return (Node*)(uintptr_t)fi->fh;
  return Lookup(path);
}

static void* FsInit(struct fuse_conn_info* conn, struct fuse_config* cfg) {
  (void)conn;
  cfg->entry_timeout = 0;
  cfg->attr_timeout = 0;
  cfg->negative_timeout = 0;
  cfg->direct_io = 1;
  cfg->hard_remove = 1;  // unlinked open files stay reachable through their handle
  cfg->kernel_cache = 0;
  return NULL;
}

static int FsGetattr(const char* path, struct stat* st, struct fuse_file_info* fi) {
  Node* n = NodeOf(path, fi);
  if (!n) return -ENOENT;
  memset(st, 0, sizeof(*st));
  st->st_mode = n->dir ? (S_IFDIR | 0755) : (S_IFREG | 0644);
  st->st_nlink = n->dir ? 2 : 1;
  st->st_size = n->dir ? 0 : (off_t)n->size;
  st->st_blocks = (blkcnt_t)((st->st_size + 511) / 512);
  st->st_blksize = 4096;
  st->st_mtim = st->st_ctim = st->st_atim = n->mtime;
  return 0;
}

static int FsReaddir(const char* path, void* buf, fuse_fill_dir_t fill, off_t off,
                     struct fuse_file_info* fi, enum fuse_readdir_flags flags) {
  (void)off;
  (void)flags;
  Node* d = NodeOf(path, fi);
  if (!d) return -ENOENT;
  if (!d->dir) return -ENOTDIR;
  fill(buf, ".", NULL, 0, 0);
  fill(buf, "..", NULL, 0, 0);
  for (size_t i = 0; i < d->cur.n; ++i) fill(buf, d->cur.v[i].name, NULL, 0, 0);
  return 0;
}

static int FsOpendir(const char* path, struct fuse_file_info* fi) {
  Node* d = Lookup(path);
  if (!d) return -ENOENT;
  if (!d->dir) return -ENOTDIR;
  fi->fh = (uint64_t)(uintptr_t)d;
  return 0;
}

static int FsMkdir(const char* path, mode_t mode) {
  (void)mode;
  const char* name;
  Node* d = Parent(path, &name);
  if (!d) return -ENOENT;
  if (Find(d, name, strlen(name))) return -EEXIST;
  AddEntry(d, name, NewNode(1));
  return 0;
}

static int FsRmdir(const char* path) {
  const char* name;
  Node* d = Parent(path, &name);
  if (!d) return -ENOENT;
  Entry* e = Find(d, name, strlen(name));
  if (!e) return -ENOENT;
  if (!e->node->dir) return -ENOTDIR;
  if (e->node->cur.n) return -ENOTEMPTY;
  RemoveEntry(d, e);
  return 0;
}

static int FsCreate(const char* path, mode_t mode, struct fuse_file_info* fi) {
  (void)mode;
  const char* name;
  Node* d = Parent(path, &name);
  if (!d) return -ENOENT;
  Entry* e = Find(d, name, strlen(name));
  Node* f;
  if (e) {
    if (e->node->dir) return -EISDIR;
    if (fi->flags & O_EXCL) return -EEXIST;
    f = e->node;
    if (fi->flags & O_TRUNC) Resize(f, 0);
  } else {
    f = NewNode(0);
    AddEntry(d, name, f);
  }
  fi->fh = (uint64_t)(uintptr_t)f;
  fi->direct_io = 1;
  return 0;
}

static int FsOpen(const char* path, struct fuse_file_info* fi) {
  Node* f = Lookup(path);
  if (!f) return -ENOENT;
  if (f->dir) return -EISDIR;
  if (fi->flags & O_TRUNC) Resize(f, 0);
  fi->fh = (uint64_t)(uintptr_t)f;
  fi->direct_io = 1;
  return 0;
}

static int FsRead(const char* path, char* buf, size_t size, off_t off, struct fuse_file_info* fi) {
  Node* f = NodeOf(path, fi);
  if (!f) return -ENOENT;
  if ((size_t)off >= f->size) return 0;
  if ((size_t)off + size > f->size) size = f->size - (size_t)off;
  memcpy(buf, f->data + off, size);
  return (int)size;
}

static int FsWrite(const char* path, const char* buf, size_t size, off_t off,
                   struct fuse_file_info* fi) {
  Node* f = NodeOf(path, fi);
  if (!f) return -ENOENT;
  size_t end = (size_t)off + size;
  if (end > f->size) {
    // A full disk takes what fits and fails the rest (the caller's next write gets ENOSPC).
    unsigned long long room = Room();
    if (end - f->size > room) {
      ++enospc_errors;
      size_t fits = f->size + room > (size_t)off ? (size_t)(f->size + room - (size_t)off) : 0;
      if (fits == 0) return -ENOSPC;
      size = fits;
      end = (size_t)off + size;
    }
  }
  SaveUndo(f, (size_t)off, size);
  if (end > f->size) Resize(f, end);
  memcpy(f->data + off, buf, size);
  clock_gettime(CLOCK_REALTIME, &f->mtime);
  return (int)size;
}

static int FsTruncate(const char* path, off_t size, struct fuse_file_info* fi) {
  Node* f = NodeOf(path, fi);
  if (!f) return -ENOENT;
  if (f->dir) return -EISDIR;
  if (!MayGrowTo(f, (size_t)size)) return -ENOSPC;
  Resize(f, (size_t)size);
  return 0;
}

static int FsUnlink(const char* path) {
  const char* name;
  Node* d = Parent(path, &name);
  if (!d) return -ENOENT;
  Entry* e = Find(d, name, strlen(name));
  if (!e) return -ENOENT;
  if (e->node->dir) return -EISDIR;
  RemoveEntry(d, e);
  return 0;
}

static int FsRename(const char* from, const char* to, unsigned int flags) {
  if (flags & ~RENAME_NOREPLACE) return -EINVAL;
  const char *from_name, *to_name;
  Node* fd = Parent(from, &from_name);
  Node* td = Parent(to, &to_name);
  if (!fd || !td) return -ENOENT;
  Entry* e = Find(fd, from_name, strlen(from_name));
  if (!e) return -ENOENT;
  Node* moved = e->node;
  Entry* target = Find(td, to_name, strlen(to_name));
  if (target) {
    if (target->node == moved) return 0;
    if (flags & RENAME_NOREPLACE) return -EEXIST;
    if (target->node->dir && target->node->cur.n) return -ENOTEMPTY;
    RemoveEntry(td, target);
  }
  RemoveEntry(fd, Find(fd, from_name, strlen(from_name)));
  AddEntry(td, to_name, moved);
  return 0;
}

static int FsFsync(const char* path, int datasync, struct fuse_file_info* fi) {
  (void)datasync;
  Node* f = NodeOf(path, fi);
  if (!f) return -ENOENT;
  ++fsyncs;
  SyncFile(f);
  return 0;
}

static int FsFsyncdir(const char* path, int datasync, struct fuse_file_info* fi) {
  (void)datasync;
  Node* d = NodeOf(path, fi);
  if (!d) return -ENOENT;
  ++dir_fsyncs;
  EntriesCopy(&d->synced, &d->cur);
  return 0;
}

static int FsFallocate(const char* path, int mode, off_t off, off_t len,
                       struct fuse_file_info* fi) {
  Node* f = NodeOf(path, fi);
  if (!f) return -ENOENT;
  if (mode & ~FALLOC_FL_KEEP_SIZE) return -EOPNOTSUPP;
  // Space is not reserved (memory is); only a size change is visible, and counted.
  if (!(mode & FALLOC_FL_KEEP_SIZE) && (size_t)(off + len) > f->size) {
    if (!MayGrowTo(f, (size_t)(off + len))) return -ENOSPC;
    Resize(f, (size_t)(off + len));
  }
  return 0;
}

static int FsStatfs(const char* path, struct statvfs* st) {
  (void)path;
  memset(st, 0, sizeof(*st));
  st->f_bsize = st->f_frsize = 4096;
  st->f_blocks = st->f_bfree = st->f_bavail = 1u << 22;  // 16 GB, nominally
  if (has_budget) {
    st->f_blocks = (fsblkcnt_t)(budget / 4096);
    st->f_bfree = st->f_bavail = (fsblkcnt_t)(Room() / 4096);
  }
  st->f_files = st->f_ffree = 1u << 20;
  st->f_namemax = 255;
  return 0;
}

static int FsUtimens(const char* path, const struct timespec tv[2], struct fuse_file_info* fi) {
  Node* n = NodeOf(path, fi);
  if (!n) return -ENOENT;
  if (tv) n->mtime = tv[1];
  return 0;
}

static int FsChmod(const char* path, mode_t mode, struct fuse_file_info* fi) {
  (void)mode;
  return NodeOf(path, fi) ? 0 : -ENOENT;
}

static int FsSetxattr(const char* path, const char* name, const char* value, size_t size,
                      int flags) {
  (void)flags;
  if (strcmp(path, "/") != 0) return -ENOTSUP;
  if (strcmp(name, "user.lossyfs.cut") == 0) return CtlCut();
  if (strcmp(name, "user.lossyfs.writeback") == 0) return CtlWriteback();
  if (strcmp(name, "user.lossyfs.budget") == 0) return CtlBudget(value, size);
  return -ENOTSUP;
}

static int FsGetxattr(const char* path, const char* name, char* value, size_t size) {
  if (strcmp(path, "/") != 0 || strcmp(name, "user.lossyfs.used") != 0) return -ENODATA;
  char text[32];
  int len = snprintf(text, sizeof(text), "%llu", UsedUnder(root));
  if (size == 0) return len;
  if (size < (size_t)len) return -ERANGE;
  memcpy(value, text, (size_t)len);
  return len;
}

static const struct fuse_operations kOps = {
    .setxattr = FsSetxattr,
    .getxattr = FsGetxattr,
    .init = FsInit,
    .getattr = FsGetattr,
    .readdir = FsReaddir,
    .opendir = FsOpendir,
    .mkdir = FsMkdir,
    .rmdir = FsRmdir,
    .create = FsCreate,
    .open = FsOpen,
    .read = FsRead,
    .write = FsWrite,
    .truncate = FsTruncate,
    .unlink = FsUnlink,
    .rename = FsRename,
    .fsync = FsFsync,
    .fsyncdir = FsFsyncdir,
    .fallocate = FsFallocate,
    .statfs = FsStatfs,
    .utimens = FsUtimens,
    .chmod = FsChmod,
};

int main(int argc, char** argv) {
  root = NewNode(1);
  char* args[8];
  int n = 0;
  const char* mountpoint = NULL;
  args[n++] = argv[0];
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--torn-tails=", 13) == 0) {
      torn_tails = 1;
      srand((unsigned)strtoul(argv[i] + 13, NULL, 10));
    } else if (strncmp(argv[i], "--budget=", 9) == 0) {
      has_budget = 1;
      budget = strtoull(argv[i] + 9, NULL, 10);
    } else if (!mountpoint && argv[i][0] != '-') {
      mountpoint = argv[i];
    } else {
      fprintf(stderr, "usage: %s [--torn-tails=SEED] [--budget=BYTES] MOUNTPOINT\n", argv[0]);
      return 2;
    }
  }
  if (!mountpoint) {
    fprintf(stderr, "usage: %s [--torn-tails=SEED] [--budget=BYTES] MOUNTPOINT\n", argv[0]);
    return 2;
  }
  args[n++] = "-f";  // foreground: the test owns the process
  args[n++] = "-s";  // one thread: the operations above share no lock
  args[n++] = "-o";
  args[n++] = "fsname=lossy_fs";
  args[n++] = (char*)mountpoint;
  return fuse_main(n, args, &kOps, NULL);
}
