/*
 * fuzz/standalone_driver.c - replays fuzz inputs without libFuzzer, so every
 * fuzz target's corpus (seeds and past findings) runs as a regression test in
 * the normal and sanitizer builds. Arguments: files or directories.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	uint8_t *buf;
	if (!f) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		fprintf(stderr, "%s: read failed\n", path);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, files = 0, rc = 0;
	for (i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			while (d && (de = readdir(d)) != NULL) {
				char p[4096];
				if (de->d_name[0] == '.')
					continue;
				snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
				rc |= run_file(p);
				files++;
			}
			if (d)
				closedir(d);
		} else {
			rc |= run_file(argv[i]);
			files++;
		}
	}
	if (files == 0) {
		fprintf(stderr, "no inputs replayed\n");
		return 1;
	}
	printf("replayed %d inputs\n", files);
	return rc;
}
