/* test_fileio.c: the file layer (taskir/fileio.h): atomic writes create the file with the mode
 * the umask gives any new file, replace an existing file whole, leave nothing behind when not
 * committed or when the directory is missing; capped reads refuse files over the cap; links
 * are followed to the target they replace, directories refused; same-file checks go by device
 * and inode. tir_file_bytes maps a regular file (the same bytes as a read), reads what it
 * cannot map (an empty file, a FIFO) and refuses what tir_read_file refuses; a large mapped
 * file has its pages brought in on a thread of its own with threads, and is released with its
 * pages dropped on threads; one of 2 MiB or more is mapped asking for huge pages. A file of more than one 8 MiB block is
 * written whole from pieces of every size, its whole blocks past the page cache where the
 * file system takes O_DIRECT, and an uncommitted one leaves nothing. */
#define _GNU_SOURCE /* O_DIRECT, mincore */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "taskir/diag.h"
#include "taskir/fileio.h"
#include "taskir/filemap.h"

/* A fresh empty directory per test, removed with its files afterwards. */
static int setup_dir(void **state)
{
    char *dir = malloc(64);
    if (!dir)
        return -1;
    snprintf(dir, 64, "/tmp/taskir-test-fileio.XXXXXX");
    if (!mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int teardown_dir(void **state)
{
    char *dir = *state;
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(dp)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(dp);
    }
    rmdir(dir);
    free(dir);
    return 0;
}

/* The number of entries in dir other than . and .. */
static int count_entries(const char *dir)
{
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(dp);
    return n;
}

static void write_ok(const char *path, const char *text)
{
    Diag d;
    diag_init(&d, path);
    assert_int_equal(tir_write_file_atomic(path, text, strlen(text), &d), ST_OK);
    diag_finish(&d);
}

static void assert_content(const char *path, const char *text)
{
    Diag d;
    diag_init(&d, path);
    uint8_t *buf;
    size_t len;
    assert_int_equal(tir_read_file(path, 1 << 20, &buf, &len, &d), ST_OK);
    assert_int_equal(len, strlen(text));
    assert_memory_equal(buf, text, len);
    free(buf);
    diag_finish(&d);
}

static void test_mode_follows_umask(void **state)
{
    const char *dir = *state;
    static const mode_t masks[] = {022, 077, 0, 027};
    static const mode_t want[] = {0644, 0600, 0666, 0640};
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/out%zu.pb", dir, i);
        mode_t old = umask(masks[i]);
        write_ok(p, "x");
        umask(old);
        struct stat sb;
        assert_int_equal(stat(p, &sb), 0);
        assert_int_equal(sb.st_mode & 0777, want[i]);
    }
    assert_int_equal(count_entries(dir), 4);
}

static void test_replaces_whole(void **state)
{
    const char *dir = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/a.pb", dir);
    write_ok(p, "a longer first content");
    write_ok(p, "short");
    assert_content(p, "short");
    assert_int_equal(count_entries(dir), 1);
}

static void test_uncommitted_leaves_nothing(void **state)
{
    const char *dir = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/b.pb", dir);
    write_ok(p, "old");
    Diag d;
    diag_init(&d, p);
    TirAtomicFile *f;
    assert_int_equal(tir_atomic_open(p, &f, &d), ST_OK);
    assert_int_equal(count_entries(dir), 2); /* b.pb and its temporary beside it */
    struct iovec v = {(void *)"new content", 11};
    assert_int_equal(tir_atomic_writev(f, &v, 1, &d), ST_OK);
    assert_int_equal(tir_atomic_close(f, false, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(count_entries(dir), 1);
    assert_content(p, "old");
}

/* Does the file system of dir take O_DIRECT? */
static bool takes_odirect(const char *dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/probe", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_DIRECT, 0600);
    if (fd >= 0)
        close(fd);
    unlink(p);
    return fd >= 0;
}

/* The file at path holds exactly the len bytes of data (read back whole). */
static void assert_file_holds(const char *path, const uint8_t *data, size_t len)
{
    Diag d;
    diag_init(&d, path);
    uint8_t *back;
    size_t blen;
    assert_int_equal(tir_read_file(path, (size_t)64 << 20, &back, &blen, &d), ST_OK);
    diag_finish(&d);
    assert_int_equal(blen, len);
    assert_memory_equal(back, data, len);
    free(back);
}

/* The number of pages of path's first len bytes in the page cache. */
static size_t resident_pages(const char *path, size_t len)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, r = 0;
    unsigned char *v = malloc(n);
    assert_non_null(v);
    assert_int_equal(mincore(m, len, v), 0);
    for (size_t i = 0; i < n; i++)
        r += v[i] & 1;
    free(v);
    munmap(m, len);
    close(fd);
    return r;
}

/* 20 MiB and 12345 bytes in pieces of 1 byte to 3 MiB over several calls: the same bytes in
 * the file; the two whole 8 MiB blocks went past the page cache (O_DIRECT) where the file
 * system takes it; not committed, nothing is left. */
static void test_large_in_blocks(void **state)
{
    const char *dir = *state;
    size_t len = ((size_t)20 << 20) + 12345;
    uint8_t *data = malloc(len);
    assert_non_null(data);
    for (size_t i = 0; i < len; i++)
        data[i] = (uint8_t)(i * 2654435761u >> 13);
    char p[512];
    snprintf(p, sizeof p, "%s/big.pb", dir);
    for (int commit = 1; commit >= 0; commit--) {
        Diag d;
        diag_init(&d, p);
        TirAtomicFile *f;
        assert_int_equal(tir_atomic_open(p, &f, &d), ST_OK);
        static const size_t sizes[] = {1, 7, 3 << 20, 4096, 100000, 5 << 20, 3};
        size_t at = 0, k = 0;
        while (at < len) {
            struct iovec v[3];
            int n = 0;
            for (; n < 3 && at < len; n++, k++) {
                size_t m = sizes[k % 7] < len - at ? sizes[k % 7] : len - at;
                v[n] = (struct iovec){data + at, m};
                at += m;
            }
            assert_int_equal(tir_atomic_writev(f, v, (size_t)n, &d), ST_OK);
        }
        assert_int_equal(tir_atomic_close(f, commit, &d), ST_OK);
        diag_finish(&d);
        if (!commit)
            break;
        if (takes_odirect(dir))
            assert_true(resident_pages(p, (size_t)16 << 20) < 64);
        assert_file_holds(p, data, len);
        unlink(p);
    }
    assert_int_equal(count_entries(dir), 0);
    free(data);
}

/* The threads of this process (the entries of /proc/self/task; 0 when it cannot be read). */
static int count_threads(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

/* 5 whole blocks of 8 MiB and a rest, one block a call: where the file system takes O_DIRECT,
 * the blocks after the first are written by a thread of the file's own while the next is
 * filled (one more thread from the second block until close, none after); the same bytes in
 * the file, committed or, not committed, nothing left. */
static void test_blocks_on_a_thread(void **state)
{
    const char *dir = *state;
    size_t block = (size_t)8 << 20, len = 5 * block + 777;
    uint8_t *data = malloc(len);
    assert_non_null(data);
    for (size_t i = 0; i < len; i++)
        data[i] = (uint8_t)(i * 40503u >> 7);
    char p[512];
    snprintf(p, sizeof p, "%s/blocks.pb", dir);
    int before = count_threads();
    bool odirect = takes_odirect(dir) && before > 0;
    for (int commit = 1; commit >= 0; commit--) {
        Diag d;
        diag_init(&d, p);
        TirAtomicFile *f;
        assert_int_equal(tir_atomic_open(p, &f, &d), ST_OK);
        for (size_t at = 0; at < len; at += block) {
            struct iovec v = {data + at, len - at < block ? len - at : block};
            assert_int_equal(tir_atomic_writev(f, &v, 1, &d), ST_OK);
            if (odirect)
                assert_int_equal(count_threads(), before + (at >= block));
        }
        assert_int_equal(tir_atomic_close(f, commit, &d), ST_OK);
        diag_finish(&d);
        if (odirect)
            assert_int_equal(count_threads(), before);
        if (!commit)
            break;
        assert_file_holds(p, data, len);
        unlink(p);
    }
    assert_int_equal(count_entries(dir), 0);
    free(data);
}

static void test_missing_directory(void **state)
{
    const char *dir = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/no/such/dir/c.pb", dir);
    Diag d;
    diag_init(&d, p);
    assert_int_equal(tir_write_file_atomic(p, "x", 1, &d), ST_RUNTIME);
    assert_true(diag_find(&d, "io.write") >= 0);
    diag_finish(&d);
    assert_int_equal(count_entries(dir), 0);
}

/* A chain of links, one relative to its own directory: the last target is replaced, the links
 * stay; a loop of links and a directory are refused with a message saying so. */
static void test_links_and_directories(void **state)
{
    const char *dir = *state;
    char target[512], l1[512], l2[512], loop[512], p[600];
    snprintf(target, sizeof target, "%s/target.pb", dir);
    snprintf(l1, sizeof l1, "%s/l1", dir);
    snprintf(l2, sizeof l2, "%s/l2", dir);
    snprintf(loop, sizeof loop, "%s/loop", dir);
    write_ok(target, "old");
    assert_int_equal(symlink("target.pb", l1), 0);
    assert_int_equal(symlink(l1, l2), 0);
    write_ok(l2, "through two links");
    assert_content(target, "through two links");
    struct stat sb;
    assert_int_equal(lstat(l1, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(l2, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(count_entries(dir), 3);
    /* a dangling link: its target is created */
    unlink(target);
    write_ok(l2, "new");
    assert_content(target, "new");
    assert_int_equal(symlink("loop", loop), 0);
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(tir_write_file_atomic(loop, "x", 1, &d), ST_RUNTIME);
    assert_true(diag_find(&d, "io.write") >= 0);
    assert_int_equal(tir_write_file_atomic(dir, "x", 1, &d), ST_RUNTIME);
    snprintf(p, sizeof p, "%s/", dir);
    assert_int_equal(tir_write_file_atomic(p, "x", 1, &d), ST_RUNTIME);
    assert_int_equal(d.n, 3);
    assert_non_null(strstr(d.entries[1].what, "is a directory"));
    assert_non_null(strstr(d.entries[2].what, "ends in '/'"));
    diag_finish(&d);
    assert_int_equal(count_entries(dir), 4);
}

/* tir_same_file and tir_output_check: by device and inode, through links. */
static void test_same_file(void **state)
{
    const char *dir = *state;
    char a[512], b[512], l[512], h[512];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    snprintf(l, sizeof l, "%s/l", dir);
    snprintf(h, sizeof h, "%s/h", dir);
    write_ok(a, "a");
    write_ok(b, "b");
    assert_int_equal(symlink(a, l), 0);
    assert_int_equal(link(a, h), 0);
    assert_true(tir_same_file(a, a));
    assert_true(tir_same_file(l, a));
    assert_true(tir_same_file(a, h));
    assert_false(tir_same_file(a, b));
    assert_false(tir_same_file("-", a));
    assert_false(tir_same_file("/dev/null", "/dev/null")); /* not a regular file */
    const char *inputs[] = {b, NULL, h};
    Diag d;
    diag_init(&d, NULL);
    assert_int_equal(tir_output_check(l, inputs, 3, &d), ST_USAGE);
    assert_int_equal(tir_output_check(b, inputs, 1, &d), ST_USAGE);
    assert_int_equal(tir_output_check(dir, inputs, 0, &d), ST_USAGE);
    assert_int_equal(d.n, 3);
    assert_string_equal(d.entries[0].rule, "usage.output");
    assert_int_equal(tir_output_check("-", inputs, 3, &d), ST_OK);
    assert_int_equal(tir_output_check(a, inputs, 2, &d), ST_OK);
    diag_finish(&d);
}

static void test_read_cap(void **state)
{
    const char *dir = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/big", dir);
    write_ok(p, "0123456789");
    Diag d;
    diag_init(&d, p);
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(tir_read_file(p, 9, &buf, &len, &d), ST_LOGIC);
    assert_true(diag_find(&d, "limit.file") >= 0);
    assert_null(buf);
    diag_finish(&d);
    diag_init(&d, p);
    assert_int_equal(tir_read_file(p, 10, &buf, &len, &d), ST_OK);
    assert_int_equal(len, 10);
    free(buf);
    diag_finish(&d);
}

static void test_file_bytes(void **state)
{
    const char *dir = *state;
    char p[512];
    Diag d;
    diag_init(&d, "t");
    TirFileBytes f;
    snprintf(p, sizeof p, "%s/a.pb", dir);
    write_ok(p, "hello, mapped");
    assert_int_equal(tir_file_bytes(p, 100, &f, &d), ST_OK);
    assert_non_null(f.map);
    assert_int_equal(f.len, 13);
    assert_memory_equal(f.p, "hello, mapped", 13);
    tir_file_release(&f);
    assert_null(f.p);
    /* over the cap: refused as tir_read_file refuses it, nothing left to release */
    assert_int_equal(tir_file_bytes(p, 12, &f, &d), ST_LOGIC);
    assert_string_equal(d.entries[d.n - 1].rule, "limit.file");
    assert_null(f.p);
    tir_file_release(&f);
    /* empty: read, not mapped */
    snprintf(p, sizeof p, "%s/empty.pb", dir);
    write_ok(p, "");
    assert_int_equal(tir_file_bytes(p, 100, &f, &d), ST_OK);
    assert_null(f.map);
    assert_int_equal(f.len, 0);
    tir_file_release(&f);
    /* missing: the read's error */
    snprintf(p, sizeof p, "%s/none.pb", dir);
    assert_int_equal(tir_file_bytes(p, 100, &f, &d), ST_RUNTIME);
    assert_string_equal(d.entries[d.n - 1].rule, "io.read");
    /* a FIFO: read, not mapped */
    snprintf(p, sizeof p, "%s/fifo", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *w = fopen(p, "w");
        if (w) {
            fputs("piped bytes", w);
            fclose(w);
        }
        _exit(0);
    }
    assert_int_equal(tir_file_bytes(p, 100, &f, &d), ST_OK);
    assert_null(f.map);
    assert_int_equal(f.len, 11);
    assert_memory_equal(f.p, "piped bytes", 11);
    tir_file_release(&f);
    waitpid(pid, NULL, 0);
    unlink(p);
    diag_finish(&d);
}

/* n bytes (freed by the caller), byte i the top bits of i * mul shifted right by shift. */
static uint8_t *patterned(size_t n, uint32_t mul, int shift)
{
    uint8_t *b = malloc(n);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * mul >> shift);
    return b;
}

/* Writes the n bytes at b to the file p, replacing it. */
static void write_whole(const char *p, const uint8_t *b, size_t n)
{
    FILE *w = fopen(p, "wb");
    assert_non_null(w);
    assert_int_equal(fwrite(b, 1, n, w), n);
    assert_int_equal(fclose(w), 0);
}

/* A large file mapped with its pages brought in on a thread of its own (threads >= 2; on one
 * thread before tir_file_bytes_threads returns): the same bytes; released with its pages
 * dropped on threads (tir_file_release_threads), at once while they may still be coming in
 * (tir_file_release stops the thread): the mapping gone, and the file's bytes the same when
 * it is mapped again. */
static void test_file_bytes_threads(void **state)
{
    const char *dir = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/big.pb", dir);
    size_t n = ((size_t)17 << 20) + 123; /* past the 16 MiB from which threads bring it in */
    uint8_t *want = patterned(n, 2654435761u, 13);
    write_whole(p, want, n);
    Diag d;
    diag_init(&d, "t");
    for (uint32_t t = 1; t <= 3; t++) {
        TirFileBytes f;
        assert_int_equal(tir_file_bytes_threads(p, n, t, &f, &d), ST_OK);
        assert_non_null(f.map);
        assert_int_equal(f.len, n);
        assert_memory_equal(f.p, want, n);
        if (t == 1) {
            assert_null(f.bg); /* brought in before it returned */
            tir_file_release(&f);
            continue;
        }
        assert_non_null(f.bg); /* brought in on a thread of its own */
        void *m = f.map;
        tir_file_release_threads(&f, t);
        assert_null(f.map);
        assert_null(f.p);
        assert_null(f.bg);
        unsigned char vec[4];
        errno = 0;
        assert_int_equal(mincore(m, 4 * 4096, vec), -1);
        assert_int_equal(errno, ENOMEM);
        /* released at once, its pages perhaps still coming in: the thread stops first */
        assert_int_equal(tir_file_bytes_threads(p, n, t, &f, &d), ST_OK);
        m = f.map;
        tir_file_release(&f);
        assert_null(f.bg);
        errno = 0;
        assert_int_equal(mincore(m, 4 * 4096, vec), -1);
        assert_int_equal(errno, ENOMEM);
    }
    TirFileBytes f; /* mapped on one thread, released on four */
    assert_int_equal(tir_file_bytes_threads(p, n, 1, &f, &d), ST_OK);
    tir_file_release_threads(&f, 4);
    assert_null(f.map);
    diag_finish(&d);
    free(want);
    unlink(p);
}

/* Whether the mapping that starts at m has the flag flag ("hg": huge pages asked for) in
 * /proc/self/smaps; -1 when the file cannot be read or has no such mapping. */
static int vma_flag(const void *m, const char *flag)
{
    FILE *s = fopen("/proc/self/smaps", "r");
    if (!s)
        return -1;
    char want[32], line[512];
    snprintf(want, sizeof want, "%lx-", (unsigned long)(uintptr_t)m);
    int on = 0, got = -1;
    while (fgets(line, sizeof line, s)) {
        if (strncmp(line, want, strlen(want)) == 0)
            on = 1;
        else if (on && strncmp(line, "VmFlags:", 8) == 0) {
            char sp[8];
            snprintf(sp, sizeof sp, " %s", flag);
            got = strstr(line, sp) != NULL;
            break;
        }
    }
    fclose(s);
    return got;
}

/* A mapped file of 2 MiB or more asks the system for huge pages before it is touched (the
 * VMA's "hg" flag: the pages come into the cache as 2 MiB folios, mapped whole), on one
 * thread and on threads; a smaller one does not. Skipped where the system has no huge
 * pages for files or no /proc. */
static void test_file_bytes_huge(void **state)
{
    const char *dir = *state;
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0)
        skip();
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/huge.pb", dir);
    snprintf(q, sizeof q, "%s/small.pb", dir);
    size_t n = ((size_t)17 << 20) + 5, small = ((size_t)2 << 20) - 1;
    uint8_t *want = patterned(n, 40503u, 7);
    write_whole(p, want, n);
    write_whole(q, want, small);
    Diag d;
    diag_init(&d, "t");
    for (uint32_t t = 1; t <= 2; t++) {
        TirFileBytes f;
        assert_int_equal(tir_file_bytes_threads(p, n, t, &f, &d), ST_OK);
        assert_non_null(f.map);
        int hg = vma_flag(f.map, "hg");
        if (hg < 0) {
            tir_file_release(&f);
            skip();
        }
        assert_int_equal(hg, 1);
        assert_memory_equal(f.p, want, n);
        tir_file_release(&f);
        assert_int_equal(tir_file_bytes_threads(q, n, t, &f, &d), ST_OK);
        assert_non_null(f.map);
        assert_int_equal(vma_flag(f.map, "hg"), 0);
        assert_memory_equal(f.p, want, small);
        tir_file_release(&f);
    }
    diag_finish(&d);
    free(want);
    unlink(p);
    unlink(q);
}

/* The kB that the mapping starting at m has in memory (smaps' Rss: its pages in the page
 * table); -1 when /proc/self/smaps cannot be read or has no such mapping. */
static long vma_rss_kb(const void *m)
{
    FILE *s = fopen("/proc/self/smaps", "r");
    if (!s)
        return -1;
    char want[32], line[512];
    snprintf(want, sizeof want, "%lx-", (unsigned long)(uintptr_t)m);
    int on = 0;
    long kb = -1;
    while (fgets(line, sizeof line, s)) {
        if (strncmp(line, want, strlen(want)) == 0)
            on = 1;
        else if (on && sscanf(line, "Rss: %ld kB", &kb) == 1)
            break;
    }
    fclose(s);
    return kb;
}

/* tir_file_bring_in_rest: the file's thread ended (f.bg NULL) and every page of the mapping
 * in the page table when it returns, on 1, 2 and 3 threads, also when the thread had hardly
 * begun (the file dropped from the cache first, so that the thread reads it from the disk);
 * the same bytes; nothing to do for a file mapped on one thread or after it. Skipped where
 * /proc/self/smaps cannot be read. */
static void test_file_bring_in_rest(void **state)
{
    const char *dir = *state;
    char p[512];
    snprintf(p, sizeof p, "%s/rest.pb", dir);
    size_t n = ((size_t)19 << 20) + 77; /* past the 16 MiB from which a thread brings it in */
    uint8_t *want = patterned(n, 2246822519u, 11);
    write_whole(p, want, n);
    long all = (long)((n + 4095) / 4096 * 4);
    Diag d;
    diag_init(&d, "t");
    for (uint32_t t = 1; t <= 3; t++) {
        int fd = open(p, O_RDONLY);
        assert_true(fd >= 0);
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* advice: the test holds either way */
        close(fd);
        TirFileBytes f;
        assert_int_equal(tir_file_bytes_threads(p, n, t, &f, &d), ST_OK);
        assert_non_null(f.map);
        assert_true(t == 1 ? f.bg == NULL : f.bg != NULL);
        tir_file_bring_in_rest(&f, t);
        assert_null(f.bg);
        long kb = vma_rss_kb(f.map);
        if (kb < 0) {
            tir_file_release(&f);
            skip();
        }
        assert_int_equal(kb, all);
        tir_file_bring_in_rest(&f, t); /* again: nothing left */
        assert_memory_equal(f.p, want, n);
        tir_file_release(&f);
        assert_null(f.map);
    }
    tir_file_bring_in_rest(NULL, 2);
    diag_finish(&d);
    free(want);
    unlink(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mode_follows_umask, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_replaces_whole, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_uncommitted_leaves_nothing, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_large_in_blocks, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_blocks_on_a_thread, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_missing_directory, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_cap, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_links_and_directories, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_same_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_file_bytes, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_file_bytes_threads, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_file_bytes_huge, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_file_bring_in_rest, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
