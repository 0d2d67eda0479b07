// CPU readings (see cpu.h).
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "clock.h"
#include "cpu.h"

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000LL + (int64_t)tv.tv_usec * 1000;
}

// read_stat_line copies the first line of /proc/stat into out.
static void read_stat_line(char *out, size_t len)
{
	out[0] = 0;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0) {
		out[0] = 0;
		return;
	}
	out[n] = 0;
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = 0;
}

void rb_cpu_take(struct rb_cpu *c)
{
	struct rusage ru;
	read_stat_line(c->stat, sizeof(c->stat));
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c->user_ns = tv_ns(ru.ru_utime);
		c->sys_ns = tv_ns(ru.ru_stime);
	}
	c->wall_ns = rb_now_ns();
	c->taken = 1;
}
